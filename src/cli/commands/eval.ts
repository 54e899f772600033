/**
 * `corral eval <env|path>`: runs an agent on an environment's examples with bounded concurrency and writes
 * results.jsonl + metadata.json (vf-eval layout). metadata.json holds the whole run command, its status (kept
 * current while running, with pid and host) and the summary; --resume DIR rebuilds the run from it. Ctrl-C
 * cancels cleanly (every sandbox released). Exit statuses: src/cli/eval/eval-exit.ts.
 */
import type { Command } from 'commander';
import { CLI_AGENT_NAMES } from '../../cli-agents/cli-agent-registry.js';
import { CorralError } from '../../core/errors.js';
import { runEvalFlow } from '../eval/eval-flow.js';
import { parseEvalOptions } from '../eval/eval-options.js';
import { localEvaluation } from '../eval/local-evaluation.js';
import { modelEndpointOf, runPreflight } from '../eval/preflight.js';
import { prepareRun } from '../eval/prepare-run.js';
import { isTerminalRun } from '../eval/terminal-run-choice.js';
import { TERMINAL_ENVIRONMENT } from '../../terminal/trial/trial-record.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerEvalCommand(program: Command): void {
  program
    .command('eval')
    .description('run an agent on an environment and write scored trajectories (results.jsonl + metadata.json)')
    // Usage errors reach main(), which exits 2 (could not start) instead of commander's 1 (which means "errored rollouts" here).
    .exitOverride()
    .argument(
      '[env]',
      'a built-in environment (wiki-search, python-code, terminal with --tasks), a Harbor / Terminal-Bench task folder or a folder of them (runs trials, as terminal --tasks does), an installed environment package (`corral env install`), or a path to a module that default-exports defineEnvironment({...}); not needed with --resume',
    )
    .option(
      '--agent <name>',
      `openai | baseline | oracle | empty | a CLI coding agent run in a sandbox (${CLI_AGENT_NAMES.join(' | ')}; needs --model and --base-url) | an agent the environment module exports (default: openai with --model, else the environment's built-in agent)`,
    )
    .option('-m, --model <name>', 'model name for the openai agent (needs --base-url)')
    .option(
      '--model-for <role=model>',
      'an environment with roles: this role is played by the openai agent with this model (same --base-url and sampling); repeatable; the other roles play --model (self-play)',
      collect,
    )
    .option('--base-url <url>', 'OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (or set OPENAI_BASE_URL)')
    .option('--api-key <key>', 'API key (default: OPENAI_API_KEY; never written to metadata.json)')
    .option('-n, --num-examples <n>', 'examples to run (-1: all; default -1)')
    .option('-r, --rollouts-per-example <r>', 'rollouts per example (group size for GRPO statistics and pass@k; default 1)')
    .option(
      '-c, --concurrency <c>',
      'rollouts in flight at once: auto (admission control: ramps up, backs off on 429/503, timeouts, rising latency, sandbox waits, memory pressure) or a fixed number',
      'auto',
    )
    .option('--max-concurrency <n>', 'the ceiling of -c auto', '256')
    .option('--out <dir>', 'output directory (default runs/<env>--<model>/<run-id>)')
    .option('--resume <dir>', 'finish an interrupted run in this directory, with the settings stored in its metadata.json')
    .option('--seed <s>', 'sampling seed (rollout i gets seed + i)')
    .option('--corpus <path>', 'wiki corpus (pages.jsonl, .jsonl.gz, a folder of .md, or a disk index dir from `corral wiki index`); repeatable', collect)
    .option('--questions <path>', 'questions JSONL for wiki-search')
    .option('--dataset <path>', 'dataset file for python-code (HumanEval.jsonl, mbpp.jsonl, sanitized-mbpp.json)')
    .option('--tasks <dir>', 'terminal: a Harbor / Terminal-Bench v1 task folder, or a folder of them')
    .option('--timeout-multiplier <x>', "terminal: multiplies every task's agent and verifier timeouts (default 1)")
    .option('--no-internet', "terminal: no network for tasks whose network_mode is public (the operator's veto)")
    .option('--base-image-map <file>', 'terminal: JSON {"FROM pattern": "local image"} tried before the built-in map')
    .option('--keep-file-system', "terminal: keep each trial's final file system (the agent's changes) so `corral rescore` can verify it again")
    .option('--env-args <json>', 'environment arguments as a JSON object, validated by the environment\'s argsSchema, e.g. \'{"difficulty":"hard"}\'')
    .option('--sampling <json>', 'sampling args passed to the model, e.g. \'{"temperature":0.7}\'')
    .option('--max-turns <n>', "override the environment's max turns")
    .option('--backend <name>', 'sandbox backend: auto | docker | process')
    .option('--data-dir <dir>', 'evaluation data directory (default CORRAL_DATA_DIR)')
    .option('--max-errors <n|p%>', "stop early (exit 3) once more than n rollouts, or p% of the run's rollouts, have errored")
    .option('--model-timeout <s>', 'seconds per model request attempt', '600')
    .option('--model-retries <n>', 'retries per model request after the first attempt (429, 5xx, timeouts, connection errors)', '4')
    .option('--no-preflight', 'skip the checks before the first rollout (dataset, agent fits the environment, model endpoint answers)')
    .option('--no-progress', 'no progress bar or progress lines')
    .option('--progress-interval <s>', 'seconds between progress lines when stderr is not a terminal', '5')
    .option('--return-tokens', "ask the model server for token ids and logprobs (vLLM's logprobs + return_token_ids)")
    .option('--samples', 'write training samples to <run>/samples.jsonl at the end (implies --return-tokens; docs/training.md)')
    .option('--token-in', 'openai agent: render new messages with /tokenize and send token ids to /v1/completions (vLLM), one sample per rollout')
    .option(
      '--canaries <rate>',
      'live canaries: this share of examples (0..1) also runs the oracle and an empty answer first; an example whose oracle fails or whose empty answer scores is quarantined (metadata.json, flagged records)',
    )
    .option('--queue <redis-url>', 'run the rollouts on `corral worker` processes through this Redis instead of here (e.g. redis://10.0.0.5:6379)')
    .action(async (environmentArgument: string | undefined, rawOptions: Record<string, unknown>) => {
      const options = parseEvalOptions(rawOptions);
      const log = (line: string) => process.stderr.write(`[eval] ${line}\n`);
      // The opposite of --model without --base-url: an endpoint without a model would run the model-free agent.
      if (options.baseUrl !== undefined && options.model === undefined && !options.resume)
        throw new CorralError(
          'CFG_ERR_INVALID',
          `--base-url ${options.baseUrl} without --model: name the model to call there (--model M), or drop --base-url to run a model-free agent`,
        );
      const terminalRun = isTerminalRun(environmentArgument, options);
      if (options.canaries !== undefined && (terminalRun || options.queue))
        throw new CorralError(
          'CFG_ERR_INVALID',
          `--canaries runs with the local executor only for now: drop ${terminalRun ? 'it for a terminal run (corral env check <task folder> checks oracle and nop)' : '--queue'}`,
        );
      if (terminalRun) {
        // Trials (here, or with --queue on `corral worker --env <task folder>`) instead of MCP episodes; the run
        // directory, resume, summary and exit statuses are this command's.
        // Imported here: trials, task images and Docker are loaded only by the runs that use them.
        const { prepareTerminalEvaluation } = await import('../eval/terminal-run.js');
        const terminal = await prepareTerminalEvaluation(options, log, environmentArgument);
        process.exitCode = await runEvalFlow({
          ...terminal.execution,
          directory: terminal.directory,
          task: TERMINAL_ENVIRONMENT,
          examples: terminal.examples,
          rolloutsPerExample: terminal.rolloutsPerExample,
          plannedRollouts: terminal.plannedRollouts,
          options,
          // Each CLI trial's ATIF trajectory is already in its trial's agent/ folder (Harbor's place).
          atif: false,
          startedAt: terminal.startedAt,
          log,
        });
        return;
      }
      const run = await prepareRun(options, environmentArgument, log);
      const { command, environment, agent, examples, directory } = run;
      if (options.preflight) {
        // Every agent with a model, local or --queue (where only the workers reach the endpoint, --no-preflight skips this).
        const endpoint = modelEndpointOf(agent, options.apiKey);
        await runPreflight({
          environment,
          agent,
          fittingAgents: run.fittingAgents,
          examples,
          ...(endpoint ? { endpoint } : {}),
          retries: options.modelRetries,
          log,
        });
      }
      const startedAt = Date.now();
      // The one decision: which executor runs the rollouts. Everything else is the one flow.
      const execution = options.queue
        ? await (await import('../eval/queued-evaluation.js')).queuedEvaluation(run, { ...options, queue: options.queue }, startedAt, log)
        : await localEvaluation(run, options, startedAt, log);
      const endpoint = options.queue ? undefined : modelEndpointOf(agent, options.apiKey);
      process.exitCode = await runEvalFlow({
        ...execution,
        directory,
        task: environment.name,
        examples,
        rolloutsPerExample: command.rollouts_per_example,
        plannedRollouts: examples.length * command.rollouts_per_example,
        options,
        atif: CLI_AGENT_NAMES.includes(agent.name),
        // vLLM serves its Prometheus metrics at the root, beside /v1.
        ...(endpoint ? { serverMetricsURL: new URL('/metrics', endpoint.baseURL) } : {}),
        startedAt,
        log,
      });
    });
}
