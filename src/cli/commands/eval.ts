/**
 * `corral eval <env|path>`: runs an agent on an environment's examples with bounded concurrency and writes
 * results.jsonl + metadata.json (vf-eval layout). Ctrl-C cancels cleanly (every sandbox released); --resume DIR
 * finishes an interrupted run without losing or duplicating rollouts.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { CorralError } from '../../core/errors.js';
import { builtInEnvironments, loadEnvironment } from '../../runner/environments/index.js';
import { runEvaluation } from '../../runner/scheduler/run-evaluation.js';
import { ResultsWriter } from '../../runner/trajectory/results-writer.js';
import { createAgent } from '../eval/agent-factory.js';
import { parseEvalOptions } from '../eval/eval-options.js';
import { openEnvironmentTools } from '../eval/environment-tools.js';
import { loadModuleAgents } from '../eval/module-agents.js';
import { createProgressDisplay } from '../eval/progress-display.js';
import { defaultRunDirectory, resolveRunDirectory } from '../eval/run-directory.js';
import { formatSummary, summarise } from '../eval/run-summary.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerEvalCommand(program: Command): void {
  program
    .command('eval')
    .description('run an agent on an environment and write scored trajectories (results.jsonl + metadata.json)')
    .argument('<env>', 'a built-in environment (wiki-search, python-code) or a path to a module that default-exports defineEnvironment({...})')
    .option('--agent <name>', 'openai | baseline | oracle | empty | an agent the environment module exports (default: openai with --model, else the environment\'s built-in agent)')
    .option('-m, --model <name>', 'model name for the openai agent')
    .option('--base-url <url>', 'OpenAI-compatible endpoint, e.g. http://localhost:8000/v1')
    .option('--api-key <key>', 'API key (default: OPENAI_API_KEY)')
    .option('-n, --num-examples <n>', 'examples to run (-1: all)', '-1')
    .option('-r, --rollouts-per-example <r>', 'rollouts per example (group size for GRPO statistics)', '1')
    .option('-c, --concurrency <c>', 'rollouts in flight at once', '32')
    .option('--out <dir>', 'output directory (default runs/<env>--<model>/<run-id>)')
    .option('--resume <dir>', 'finish an interrupted run in this directory')
    .option('--seed <s>', 'sampling seed (rollout i gets seed + i)')
    .option('--corpus <path>', 'wiki corpus (pages.jsonl or a folder of .md); repeatable', collect)
    .option('--questions <path>', 'questions JSONL for wiki-search')
    .option('--dataset <path>', 'dataset file for python-code (HumanEval.jsonl, mbpp.jsonl, sanitized-mbpp.json)')
    .option('--sampling <json>', 'sampling args passed to the model, e.g. \'{"temperature":0.7}\'')
    .option('--max-turns <n>', 'override the environment\'s max turns')
    .option('--backend <name>', 'sandbox backend: auto | docker | process')
    .option('--data-dir <dir>', 'evaluation data directory (default CORRAL_DATA_DIR)')
    .option('--no-progress', 'no progress bar')
    .action(async (environmentArgument: string, rawOptions: Record<string, unknown>) => {
      const options = parseEvalOptions(rawOptions);
      const config = loadConfig({ flags: { backend: options.backend, dataDir: options.dataDir } });
      const log = (line: string) => process.stderr.write(`[eval] ${line}\n`);
      const loaded = await loadEnvironment(environmentArgument);
      const environment = options.maxTurns ? Object.freeze({ ...loaded, maxTurns: options.maxTurns }) : loaded;
      const agent = createAgent(options, environment.name, await loadModuleAgents(environmentArgument, Object.keys(builtInEnvironments)));
      const args = { corpus: options.corpus, questions: options.questions, dataset: options.dataset };
      const allExamples = await environment.dataset({ args, dataDir: config.data.dataDir });
      const examples = options.numExamples < 0 ? allExamples : allExamples.slice(0, options.numExamples);

      const directory = options.resume ? resolveRunDirectory(options.resume) : options.out ? resolveRunDirectory(options.out) : defaultRunDirectory(environment.name, agent.model);
      if (options.resume && !existsSync(directory)) throw new CorralError('CFG_ERR_INVALID', `--resume ${directory}: no such run directory`);
      const writer = ResultsWriter.open(directory);
      const previous = writer.readMetadata();
      if (options.resume && previous) checkResumable(previous, environment.name, agent.model, options.rolloutsPerExample);

      const { runtime, tools } = await openEnvironmentTools(environment, config, { ...(options.corpus ? { corpus: options.corpus } : {}), log });
      const controller = new AbortController();
      const onSignal = () => {
        if (controller.signal.aborted) process.exit(130);
        log('cancelling: finishing in-flight rollouts and releasing sandboxes (Ctrl-C again to quit at once)');
        controller.abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const startedAt = Date.now();
      const metadata = {
        env_id: environment.name,
        env: environment.name,
        model: agent.model,
        agent: agent.name,
        backend: runtime.backend,
        num_examples: examples.length,
        rollouts_per_example: options.rolloutsPerExample,
        sampling_args: agent.samplingArgs ?? {},
        max_concurrent: options.concurrency,
        corral_version: '0.1.0',
        date: new Date(startedAt).toISOString().slice(0, 10),
        time: new Date(startedAt).toISOString().slice(11, 19),
      };
      writer.writeMetadata({ ...previous, ...metadata, status: 'running' });
      log(`${environment.name}: ${examples.length} examples x ${options.rolloutsPerExample} rollouts, agent ${agent.name} (${agent.model}), backend ${runtime.backend}, ${writer.completed.size} already done -> ${directory}`);
      const total = examples.length * options.rolloutsPerExample - writer.completed.size;
      const progressDisplay = createProgressDisplay(total, options.progress && process.stderr.isTTY === true);
      try {
        await runEvaluation({
          environment,
          agent,
          tools,
          examples,
          rolloutsPerExample: options.rolloutsPerExample,
          concurrency: options.concurrency,
          abortSignal: controller.signal,
          skip: writer.completed,
          ...(options.seed === undefined ? {} : { seed: options.seed }),
          onGroup: (records) => writer.append(records),
          onProgress: (progress) => progressDisplay.update(progress),
        });
      } finally {
        progressDisplay.stop();
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        await runtime.close();
        writer.close();
      }
      const summary = summarise(ResultsWriter.open(directory).existing);
      const complete = summary.rollouts === examples.length * options.rolloutsPerExample;
      writer.writeMetadata({
        ...metadata,
        status: controller.signal.aborted ? 'cancelled' : complete ? 'complete' : 'incomplete',
        time_ms: Date.now() - startedAt,
        avg_reward: summary.avg_reward,
        ...Object.fromEntries(Object.entries(summary.metrics).map(([name, value]) => [`avg_${name}`, value])),
        rollouts: summary.rollouts,
        errored: summary.errored,
        errors_by_code: summary.errorsByCode,
      });
      process.stdout.write(`${formatSummary(summary, directory)}\n`);
      if (controller.signal.aborted) process.exitCode = 130;
    });
}

function checkResumable(previous: Record<string, unknown>, environment: string, model: string, rolloutsPerExample: number): void {
  const mismatches = [
    previous.env_id !== environment ? `env ${String(previous.env_id)} != ${environment}` : '',
    previous.model !== model ? `model ${String(previous.model)} != ${model}` : '',
    previous.rollouts_per_example !== rolloutsPerExample ? `rollouts_per_example ${String(previous.rollouts_per_example)} != ${rolloutsPerExample}` : '',
  ].filter(Boolean);
  if (mismatches.length) throw new CorralError('RUNNER_ERR_RESUME_MISMATCH', `cannot resume: ${mismatches.join(', ')}`);
}
