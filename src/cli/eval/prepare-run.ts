/**
 * From flags (a new run) or from metadata.json (--resume) to what `corral eval` runs: the run command, the
 * environment, the agent and the examples. On resume every setting comes from the stored command; a flag that
 * disagrees with it is refused (RUNNER_ERR_RESUME_MISMATCH), so a resumed run never changes what the run is.
 */
import { resolve } from 'node:path';
import { type CorralConfig, loadConfig } from '../../config/load-config.js';
import { CorralError } from '../../core/errors.js';
import type { Agent } from '../../runner/agents/agent.js';
import { OpenAIAgent } from '../../runner/agents/openai/openai-agent.js';
import type { Environment, Example } from '../../runner/contract/environment.js';
import { builtInEnvironments } from '../../runner/environments/index.js';
import { environmentCache } from '../../environment-packages/environment-cache.js';
import type { EnvironmentSource } from '../../environment-packages/environment-source.js';
import { resolveEnvironment } from '../../environment-packages/resolve-environment.js';
import { bindEnvironmentArgs } from '../../runner/contract/environment-args.js';
import { collectExamples } from '../../runner/scheduler/dataset-stream.js';
import { refuseAgentWithoutReplies } from '../../runner/scheduler/environment-replies.js';
import { agentsFor, chooseAgentName, createAgent } from './agent-factory.js';
import { type EvalOptions, parseEnvironmentArgs, parseRoleModels, parseSamplingArgs, withTokenRequest } from './eval-options.js';
import { type AgentFactories, loadModuleAgents } from './module-agents.js';
import { defaultRunDirectory, readResumedMetadata, refuseOccupiedRunDirectory } from './run-directory.js';
import { type RunCommand, assertResumeMatches, commandFromFlags, storedCommand } from './run-command.js';
import { refuseActiveRun } from './refuse-active-run.js';

export interface PreparedRun {
  command: RunCommand;
  config: CorralConfig;
  directory: string;
  /** metadata.json as found (resume), else null. */
  previous: Record<string, unknown> | null;
  environment: Environment;
  /** Where the environment came from (built-in, package, local module), for metadata.json's env_source. */
  source: EnvironmentSource;
  agent: Agent;
  /** --model-for: the agent of each role named there (environments with roles); the other roles play `agent`. */
  roleAgents: Record<string, Agent>;
  moduleAgents: AgentFactories;
  fittingAgents: string[];
  examples: Example[];
}

export async function prepareRun(options: EvalOptions, environmentArgument: string | undefined, log: (line: string) => void): Promise<PreparedRun> {
  const builtInNames = Object.keys(builtInEnvironments);
  const given = commandFromFlags(options, environmentArgument, builtInNames);
  let stored: RunCommand | undefined;
  let previous: Record<string, unknown> | null = null;
  let directory: string;
  if (options.resume) {
    if (options.out) throw new CorralError('CFG_ERR_INVALID', '--resume DIR continues the run in DIR; drop --out');
    directory = resolve(options.resume);
    previous = readResumedMetadata(directory);
    stored = storedCommand(previous, directory);
    assertResumeMatches(stored, given, typeof previous?.backend === 'string' ? previous.backend : undefined, directory);
    refuseActiveRun(previous, directory, log);
  } else {
    if (environmentArgument === undefined)
      throw new CorralError('CFG_ERR_INVALID', 'corral eval needs <env> (a built-in name or a module path), or --resume DIR');
    directory = options.out ? resolve(options.out) : '';
    if (directory) refuseOccupiedRunDirectory(directory);
  }
  // A resumed run keeps the backend it ran on ('auto' resolved once, at its start) and its data directory.
  const pinnedBackend = previous?.backend === 'docker' || previous?.backend === 'process' ? previous.backend : stored?.backend;
  const config = loadConfig({
    flags: { backend: stored ? pinnedBackend : options.backend, dataDir: stored ? (stored.data_dir ?? undefined) : options.dataDir },
  });
  const environmentName = stored?.env ?? given.env!;
  const resolved = await resolveEnvironment(environmentName, {
    builtIns: builtInEnvironments,
    cache: environmentCache(config),
    log,
    loadTimeoutMs: config.environments.loadTimeoutMs,
  });
  if (previous) warnIfSourceChanged(previous['env_source'], resolved.source, log);
  const loaded = resolved.environment;
  const maxTurns = stored ? stored.max_turns : (options.maxTurns ?? null);
  // Validated once per run; a resumed run keeps the arguments it started with.
  const environmentArgs = stored ? (stored.env_args.args ?? {}) : parseEnvironmentArgs(options.envArgs);
  const bound = await bindEnvironmentArgs(loaded, environmentArgs);
  const environment = maxTurns ? Object.freeze({ ...bound, maxTurns }) : bound;
  const moduleAgents = await loadModuleAgents(resolved.modulePath ?? environmentName, builtInNames);
  const agentName = stored?.agent ?? chooseAgentName(options.agent, options.model, environment.name, moduleAgents);
  const samplingArgs = stored?.sampling_args ?? withTokenRequest(parseSamplingArgs(options.sampling), options);
  const tokenIn = stored ? stored.token_in === true : options.tokenIn;
  const model = stored ? stored.model : (options.model ?? null);
  const agentChoice = {
    agent: agentName,
    model,
    baseUrl: stored ? stored.base_url : (options.baseUrl ?? null),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    samplingArgs,
    tokenIn,
    modelTimeoutS: options.modelTimeout,
    modelRetries: options.modelRetries,
  };
  const agent = createAgent(agentChoice, moduleAgents, log);
  const roleModels = stored ? (stored.role_models ?? {}) : parseRoleModels(options.modelFor);
  refuseRoleModels(roleModels, environment, agent, options);
  const roleAgents = Object.fromEntries(
    Object.entries(roleModels).map(([role, roleModel]) => [role, createAgent({ ...agentChoice, model: roleModel }, moduleAgents, log)]),
  );
  // Before anything opens: an environment that answers turns needs an agent that continues after its reply.
  refuseAgentWithoutReplies(environment, agent);
  const envArgs = stored?.env_args ?? {
    corpus: given.env_args?.corpus ?? null,
    questions: given.env_args?.questions ?? null,
    dataset: given.env_args?.dataset ?? null,
    args: (environment.envArgs ?? {}) as Record<string, unknown>,
  };
  const source = await environment.dataset({
    args: { corpus: envArgs.corpus ?? undefined, questions: envArgs.questions ?? undefined, dataset: envArgs.dataset ?? undefined },
    dataDir: config.data.dataDir,
    envArgs: environment.envArgs ?? {},
  });
  const numExamples = stored?.num_examples ?? options.numExamples ?? -1;
  // A stream is read only as far as -n asks (an RL stream without a fixed size needs -n).
  const examples = await collectExamples(source, { limit: numExamples });
  if (stored && typeof previous?.num_examples === 'number' && previous.num_examples !== examples.length) {
    throw new CorralError(
      'RUNNER_ERR_RESUME_MISMATCH',
      `cannot resume ${directory}: the dataset now gives ${examples.length} examples, the run has ${previous.num_examples} (did the dataset file change?)`,
    );
  }
  const command: RunCommand = stored ?? {
    env: environmentName,
    env_args: envArgs,
    data_dir: config.data.dataDir ? resolve(config.data.dataDir) : null,
    agent: agentName,
    model,
    ...(Object.keys(roleModels).length > 0 ? { role_models: roleModels } : {}),
    base_url: agent instanceof OpenAIAgent ? agent.baseURL : null,
    num_examples: numExamples,
    rollouts_per_example: options.rolloutsPerExample ?? 1,
    sampling_args: samplingArgs,
    ...(tokenIn ? { token_in: true } : {}),
    seed: options.seed ?? null,
    max_turns: maxTurns,
    backend: config.sandbox.backend,
  };
  return {
    command,
    config,
    directory: directory || defaultRunDirectory(environment.name, agent.model),
    previous,
    environment,
    source: resolved.source,
    agent,
    roleAgents,
    moduleAgents,
    fittingAgents: agentsFor(environment.name, moduleAgents),
    examples,
  };
}

/** A resumed run should finish with what it started with; a changed package version or module file is worth a line. */
function warnIfSourceChanged(stored: unknown, current: EnvironmentSource, log: (line: string) => void): void {
  if (typeof stored !== 'object' || stored === null) return;
  const identity = (source: Record<string, unknown>) =>
    JSON.stringify([source['kind'], source['name'], source['version'], source['sha256'] ?? source['module_sha256']]);
  if (identity(stored as Record<string, unknown>) !== identity(current as unknown as Record<string, unknown>)) {
    log(`warning: the environment changed since this run started (was ${JSON.stringify(stored)}, now ${JSON.stringify(current)})`);
  }
}

/** --model-for needs an environment with those roles, the openai agent and a local run; CFG_ERR_INVALID otherwise. */
function refuseRoleModels(roleModels: Record<string, string>, environment: Environment, agent: Agent, options: EvalOptions): void {
  const named = Object.keys(roleModels);
  if (named.length === 0) return;
  const refuse = (why: string) => {
    throw new CorralError('CFG_ERR_INVALID', `--model-for ${named.join(', ')}: ${why}`);
  };
  if (!environment.roles) refuse(`environment ${environment.name} has no roles (one agent plays it; use --model)`);
  const unknown = named.filter((role) => !environment.roles!.includes(role));
  if (unknown.length > 0) refuse(`environment ${environment.name} has no role ${unknown.join(', ')}; its roles are ${environment.roles!.join(', ')}`);
  if (!(agent instanceof OpenAIAgent)) refuse('per-role models are played by the openai agent: give --model and --base-url too');
  if (options.queue !== undefined) refuse('not supported with --queue yet: queue workers run one agent per run');
}
