/**
 * `corral env check <env>`: the composition of the environment check. Resolves the environment as `corral eval`
 * does (built-in, package, module; --env-args bound once), picks the oracle, opens rollouts with the tools `corral
 * eval` uses, runs the battery in src/environment-check/ and prints the report. Exit 1 on any error-level check.
 */
import type { Command } from 'commander';
import { z } from 'zod';
import { loadConfig } from '../../config/load-config.js';
import { CorralError } from '../../core/errors.js';
import { environmentCache } from '../../environment-packages/environment-cache.js';
import { taskFolderAt } from '../../environment-packages/task-folder.js';
import { resolveEnvironment } from '../../environment-packages/resolve-environment.js';
import { referenceAnswerAgent, chooseOracleName, roleOracleNames } from '../../environment-check/check-agents.js';
import { formatReport } from '../../environment-check/format-report.js';
import { runEnvironmentCheck } from '../../environment-check/run-environment-check.js';
import type { Agent } from '../../runner/agents/agent.js';
import { builtInAgentNotes } from '../../runner/agents/baseline/baseline-agents.js';
import { bindEnvironmentArgs } from '../../runner/contract/environment-args.js';
import type { Environment, Example } from '../../runner/contract/environment.js';
import { builtInEnvironments } from '../../runner/environments/index.js';
import { collectExamples } from '../../runner/scheduler/dataset-stream.js';
import { createAgent } from '../eval/agent-factory.js';
import { openEnvironmentTools } from '../eval/environment-tools.js';
import { parseEnvironmentArgs } from '../eval/eval-options.js';
import { loadModuleAgents } from '../eval/module-agents.js';
import { checkTaskFolder } from './env-check-task-folder.js';

const log = (line: string) => process.stderr.write(`[env check] ${line}\n`);

const checkOptionsSchema = z
  .object({
    json: z.boolean().default(false),
    oracle: z.string().optional(),
    numExamples: z.coerce.number().int().positive().optional(),
    concurrency: z.coerce.number().int().positive().default(4),
    margin: z.coerce.number().min(0).max(1).default(0.5),
    repeats: z.coerce.number().int().min(2).default(3),
    envArgs: z.string().optional(),
    backend: z.enum(['auto', 'docker', 'process']).optional(),
    dataDir: z.string().optional(),
    cacheDir: z.string().optional(),
    corpus: z.array(z.string()).optional(),
    questions: z.string().optional(),
    dataset: z.string().optional(),
    baseImageMap: z.string().optional(),
  })
  .strict();

/** Examples an environment is checked on when -n is not given; a task folder is checked whole. */
const DEFAULT_EXAMPLES = 5;

type CheckOptions = z.output<typeof checkOptionsSchema>;

export function registerEnvCheckCommand(env: Command): void {
  env
    .command('check')
    .description(
      'check an environment before a run: oracle reaches the maximum, an empty answer scores below it, rewards are deterministic, no answer leaks, network is declared, tools and ids are in order',
    )
    .argument('<env>', 'a built-in, an installed package name, a module path, or a Harbor / Terminal-Bench task folder')
    .option('--json', 'print the versioned JSON report')
    .option(
      '--oracle <agent>',
      'the agent expected to score full marks (default: the module’s oracle|reference|solver|fixer, a built-in oracle, else the dataset’s reference answers); with roles, the module’s <agent>-<role> where it exports one',
    )
    .option('-n, --num-examples <n>', 'check the first n examples (default 5; every task of a task folder)')
    .option('-c, --concurrency <n>', 'rollouts at once (default 4)')
    .option('--margin <share>', 'the empty answer’s mean reward must sit below the oracle’s by this share of the maximum (default 0.5)')
    .option('--repeats <n>', 'score each oracle trajectory this many times (default 3)')
    .option(
      '--env-args <json>',
      'the environment’s arguments, validated by its schema (e.g. a simulated user’s endpoint: \'{"user_base_url":"http://127.0.0.1:8001/v1"}\')',
    )
    .option('--backend <name>', 'auto | docker | process (default CORRAL_BACKEND, else auto)')
    .option('--data-dir <dir>', 'evaluation data directory (default CORRAL_DATA_DIR)')
    .option('--cache-dir <dir>', 'corral’s cache folder (default CORRAL_CACHE_DIR, else ~/.cache/corral)')
    .option('--corpus <path...>', 'wiki corpus paths (wiki environments)')
    .option('--questions <path>', 'questions file (wiki-search)')
    .option('--dataset <path>', 'dataset file (python-code)')
    .option('--base-image-map <file>', 'task folders: JSON map of FROM images to local ones')
    .action(async (name: string, raw: Record<string, unknown>) => {
      const parsed = checkOptionsSchema.safeParse(raw);
      if (!parsed.success)
        throw new CorralError(
          'CFG_ERR_INVALID',
          `corral env check: ${parsed.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
        );
      const folder = taskFolderAt(name, Object.keys(builtInEnvironments));
      const report =
        folder === undefined
          ? await checkEnvironment(name, parsed.data)
          : await checkTaskFolder(
              folder,
              {
                ...(parsed.data.numExamples === undefined ? {} : { numExamples: parsed.data.numExamples }),
                concurrency: parsed.data.concurrency,
                margin: parsed.data.margin,
                ...(parsed.data.baseImageMap ? { baseImageMap: parsed.data.baseImageMap } : {}),
              },
              log,
            );
      process.stdout.write(parsed.data.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
      if (report.counts.error > 0) process.exitCode = 1;
    });
}

async function checkEnvironment(name: string, options: CheckOptions) {
  const config = loadConfig({ flags: { backend: options.backend, dataDir: options.dataDir, cacheDir: options.cacheDir } });
  const resolved = await resolveEnvironment(name, {
    builtIns: builtInEnvironments,
    cache: environmentCache(config),
    log,
    loadTimeoutMs: config.environments.loadTimeoutMs,
  });
  const environment = await bindEnvironmentArgs(resolved.environment, parseEnvironmentArgs(options.envArgs));
  const builtInNames = Object.keys(builtInEnvironments);
  const moduleAgents = await loadModuleAgents(resolved.modulePath ?? name, builtInNames);
  const oracleName = chooseOracleName(options.oracle, Object.keys(moduleAgents), builtInAgentNotes['oracle']?.environments.includes(environment.name) ?? false);
  const agentNamed = (agent: string) =>
    createAgent({ agent, model: null, baseUrl: null, samplingArgs: {}, modelTimeoutS: 60, modelRetries: 0 }, moduleAgents, log);
  const oracle: Agent = oracleName === null ? referenceAnswerAgent() : agentNamed(oracleName);
  // Roles: the module's <oracle>-<role> agent where it exports one, else the oracle in every role.
  const roleOracles: Record<string, Agent> = {};
  if (environment.roles && oracleName !== null) {
    for (const [role, name] of Object.entries(roleOracleNames(oracleName, environment.roles, Object.keys(moduleAgents))))
      roleOracles[role] = name === oracleName ? oracle : agentNamed(name);
  }
  const loadExamples = async (): Promise<Example[]> => {
    const source = await environment.dataset({
      args: { corpus: options.corpus, questions: options.questions, dataset: options.dataset },
      dataDir: config.data.dataDir,
      envArgs: environment.envArgs ?? {},
    });
    return collectExamples(source, { limit: options.numExamples ?? DEFAULT_EXAMPLES });
  };
  const examples = await loadExamples();
  const examplesAgain = await loadExamples();
  const abort = new AbortController();
  const stop = () => abort.abort(new CorralError('ERR_ABORTED', 'corral env check was interrupted'));
  process.once('SIGINT', stop);
  try {
    return await runEnvironmentCheck({
      environment,
      examples,
      examplesAgain,
      oracle,
      roleOracles,
      openRollouts: async (checked: Environment) => {
        const tools = await openEnvironmentTools(checked, config, { log, ...(options.corpus ? { corpus: options.corpus } : {}), agent: oracle });
        return { rollouts: tools.rollouts, close: () => tools.runtime.close() };
      },
      concurrency: options.concurrency,
      margin: options.margin,
      scoringRepeats: options.repeats,
      abortSignal: abort.signal,
      log,
    });
  } finally {
    process.off('SIGINT', stop);
  }
}
