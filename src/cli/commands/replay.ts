/**
 * `corral replay <run-dir> --from-turn K`: each saved trajectory continues from turn K with the given agent, into a
 * new run, through the one run driver and eval flow (the replay executor around the local one). `--tools recorded`
 * answers tool calls from the recording (no sandbox); `--tools live` brings a fresh sandbox to turn K by running the
 * recorded calls again. Records carry their lineage and the turns that were copied.
 */
import type { Command } from 'commander';
import { CorralError } from '../../core/errors.js';
import type { Environment } from '../../runner/contract/environment.js';
import type { EnvironmentRolloutFactory } from '../../runner/contract/environment-rollout.js';
import { builtInEnvironments } from '../../runner/environments/index.js';
import { type ReplayOutcome, type ReplayPlan, type ReplayTools, replayAgent } from '../../runner/replay/replay-agent.js';
import { replayExecutor, replayable } from '../../runner/replay/replay-executor.js';
import { recordedToolSessions } from '../../runner/replay/recorded-tool-session.js';
import { readSourceRun, sourceRolloutsPerExample } from '../../runner/replay/source-run.js';
import { assertRescorable } from '../../runner/replay/trajectory-only-scoring.js';
import { localExecutor } from '../../runner/run/local-executor.js';
import { toolSessionRollouts } from '../../runner/scheduler/tool-session-rollouts.js';
import { chooseAgentName, createAgent } from '../eval/agent-factory.js';
import { runStamp } from '../eval/run-metadata.js';
import { runEvalFlow } from '../eval/eval-flow.js';
import { parseSamplingArgs, withTokenRequest } from '../eval/eval-options.js';
import { openEnvironmentTools } from '../eval/environment-tools.js';
import { loadModuleAgents } from '../eval/module-agents.js';
import { environmentForSourceRun, newRunDirectory, positiveInteger, sourceExamples } from './source-run-environment.js';

interface ReplayFlags {
  fromTurn: string;
  agent?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  sampling?: string;
  returnTokens?: boolean;
  seed?: string;
  tools: string;
  rolloutsPerExample?: string;
  out?: string;
  concurrency: string;
  env?: string;
  envArgs?: string;
  corpus?: string[];
  backend?: string;
  dataDir?: string;
  modelTimeout: string;
  modelRetries: string;
  progress: boolean;
}

export function registerReplayCommand(program: Command): void {
  program
    .command('replay')
    .description("continue a run's saved trajectories from turn K with another agent or model, into a new run (recorded or live tools)")
    .exitOverride()
    .argument('<run-dir>', 'a run directory (results.jsonl + metadata.json)')
    .requiredOption('--from-turn <k>', 'the first turn the new agent produces; turns 1..k-1 are copied from each trajectory')
    .option('--agent <name>', 'agent to continue with (default: openai with --model)')
    .option('-m, --model <name>', 'model name for the openai agent (needs --base-url)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint (or set OPENAI_BASE_URL)')
    .option('--api-key <key>', 'API key (default: OPENAI_API_KEY; never written to metadata.json)')
    .option('--sampling <json>', 'sampling args passed to the model')
    .option('--return-tokens', "ask the model server for token ids and logprobs (vLLM's logprobs + return_token_ids), for training samples")
    .option('--seed <s>', "sampling seed (replay i of a trajectory gets seed + its rollout index; default: the run's)")
    .option(
      '--tools <mode>',
      'recorded: calls matching the recording get its results, others an error result; live: a fresh sandbox replays the prefix',
      'recorded',
    )
    .option('-r, --rollouts-per-example <n>', 'replays of each trajectory (default 1)')
    .option('--out <dir>', 'the new run directory (default <run-dir>-replay-<time> beside the run)')
    .option('-c, --concurrency <c>', 'replays in flight at once', '8')
    .option('--env <env>', "the environment (default: the run's own)")
    .option('--env-args <json>', "environment arguments as a JSON object (default: the run's)")
    .option(
      '--corpus <path>',
      "--tools live: wiki corpus (pages.jsonl, a folder of .md or a disk index dir; default: the run's); repeatable",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--backend <name>', 'sandbox backend for --tools live: auto | docker | process')
    .option('--data-dir <dir>', 'evaluation data directory (default CORRAL_DATA_DIR)')
    .option('--model-timeout <s>', 'seconds per model request attempt', '600')
    .option('--model-retries <n>', 'retries per model request after the first attempt', '4')
    .option('--no-progress', 'no progress bar or progress lines')
    .action(async (runDirectory: string, flags: ReplayFlags) => {
      const log = (line: string) => process.stderr.write(`${line}\n`);
      if (flags.tools !== 'recorded' && flags.tools !== 'live')
        throw new CorralError('CFG_ERR_INVALID', `--tools must be recorded or live, got ${flags.tools}`);
      const tools: ReplayTools = flags.tools;
      const replays = positiveInteger('--rollouts-per-example', flags.rolloutsPerExample, 1);
      const concurrency = positiveInteger('--concurrency', flags.concurrency, 8);
      const source = readSourceRun(runDirectory);
      const fromTurn = Number(flags.fromTurn);
      const longest = source.records.filter((record) => record.error === null).reduce((most, record) => Math.max(most, record.turns), 0);
      if (!Number.isInteger(fromTurn) || fromTurn < 1 || fromTurn > longest)
        throw new CorralError(
          'REPLAY_ERR_BAD_TURN',
          `--from-turn ${flags.fromTurn}: give a whole number from 1 to ${longest} (the most turns of a trajectory in ${source.directory} that did not error)`,
          { details: { longest } },
        );
      const chosen = await environmentForSourceRun(source, flags, log);
      const moduleAgents = await loadModuleAgents(chosen.modulePath ?? chosen.name, Object.keys(builtInEnvironments));
      const agentName = chooseAgentName(flags.agent, flags.model, chosen.environment.name, moduleAgents);
      const samplingArgs = withTokenRequest(parseSamplingArgs(flags.sampling), { returnTokens: flags.returnTokens === true, samples: false, tokenIn: false });
      const agent = createAgent(
        {
          agent: agentName,
          model: flags.model ?? null,
          baseUrl: flags.baseUrl ?? null,
          ...(flags.apiKey ? { apiKey: flags.apiKey } : {}),
          samplingArgs,
          modelTimeoutS: Number(flags.modelTimeout),
          modelRetries: Number(flags.modelRetries),
        },
        moduleAgents,
        log,
      );
      const plan: ReplayPlan = { source, fromTurn, replays, tools };
      const { environment, rollouts, close } = await replayTools(plan, chosen.environment, chosen.config, flags.corpus ?? storedCorpus(source.metadata), log);
      const directory = newRunDirectory(source, flags.out, 'replay');
      const storedSeed = (source.metadata['command'] as { seed?: unknown } | undefined)?.seed;
      const seed = flags.seed !== undefined ? Number(flags.seed) : typeof storedSeed === 'number' ? storedSeed : undefined;
      const outcomes = new Map<string, ReplayOutcome>();
      const local = localExecutor({ environment, agent: replayAgent(agent, plan, outcomes), rollouts, ...(seed === undefined ? {} : { seed }) });
      const startedAt = Date.now();
      const examples = sourceExamples(source);
      const selected = source.records.filter((record) => replayable(record, fromTurn)).length;
      if (selected === 0) throw new CorralError('REPLAY_ERR_BAD_TURN', `no trajectory in ${source.directory} reached turn ${fromTurn} without an error`);
      const metadata: Record<string, unknown> = {
        env_id: environment.name,
        env: environment.name,
        env_source: chosen.source,
        model: agent.model,
        agent: agent.name,
        sampling_args: samplingArgs,
        num_examples: examples.length,
        rollouts_per_example: sourceRolloutsPerExample(source) * replays,
        ...(source.metadata['tools'] ? { tools: source.metadata['tools'] } : {}),
        lineage: {
          kind: 'replay',
          source_run: source.directory,
          source_model: source.metadata['model'] ?? null,
          source_agent: source.metadata['agent'] ?? null,
          from_turn: fromTurn,
          tools,
          replays_per_trajectory: replays,
        },
        ...runStamp(startedAt),
      };
      process.exitCode = await runEvalFlow({
        executor: replayExecutor(plan, local, outcomes),
        metadata,
        describe: `replay ${source.directory} from turn ${fromTurn} with ${agent.name} (${agent.model}), ${tools} tools: ${selected} of ${source.records.length} trajectories x ${replays}`,
        cancelling: 'finishing in-flight replays and releasing sandboxes',
        close: async () => {
          await agent.close?.().catch(() => undefined);
          await close();
        },
        directory,
        task: environment.name,
        examples,
        rolloutsPerExample: sourceRolloutsPerExample(source) * replays,
        plannedRollouts: source.records.length * replays,
        options: { concurrency, maxConcurrency: concurrency, progress: flags.progress, progressInterval: 5, samples: false },
        atif: false,
        startedAt,
        log,
      });
    });
}

/** recorded: no sandbox, the environment's own tools and hooks left out, the rubric must not read the sandbox; live: the eval tool runtime. */
async function replayTools(
  plan: ReplayPlan,
  environment: Environment,
  config: Parameters<typeof openEnvironmentTools>[1],
  corpus: string[] | undefined,
  log: (line: string) => void,
): Promise<{ environment: Environment; rollouts: EnvironmentRolloutFactory; close: () => Promise<void> }> {
  if (plan.tools === 'recorded') {
    assertRescorable(environment);
    const withoutSandbox: Environment = Object.freeze({ ...environment, tools: Object.freeze([]), setup: undefined, cleanup: undefined });
    return { environment: withoutSandbox, rollouts: toolSessionRollouts(withoutSandbox, recordedToolSessions(plan.source)), close: async () => undefined };
  }
  const opened = await openEnvironmentTools(environment, config, { ...(corpus ? { corpus } : {}), log });
  return { environment, rollouts: opened.rollouts, close: () => opened.runtime.close() };
}

/** The wiki corpus the source run was given (`--corpus`), for live tools. */
function storedCorpus(metadata: Record<string, unknown>): string[] | undefined {
  const corpus = (metadata['command'] as { env_args?: { corpus?: unknown } } | undefined)?.env_args?.corpus;
  return Array.isArray(corpus) ? corpus.map(String) : undefined;
}
