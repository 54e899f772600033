/**
 * The battery of `corral env check`: the oracle's run (every trajectory scored N times), the empty-answer floor's
 * run and one network-probe rollout, all through the one run driver, then the static checks over the examples, the tools the agents saw and the
 * environment's declarations. Returns the versioned report; the caller decides the exit code (1 on any error).
 */
import type { Agent } from '../runner/agents/agent.js';
import type { Environment, Example } from '../runner/contract/environment.js';
import { type AgentRun, type OpenRollouts, runAgent } from './agent-runs.js';
import { emptyAnswerAgent } from './check-agents.js';
import { type EnvironmentCheckReport, reportOf } from './check-report.js';
import { checkDeterminism, rescoringEnvironment } from './determinism-check.js';
import { checkEnvironmentArgs, checkExampleIds, checkTimeouts, checkToolDescriptions } from './hygiene-checks.js';
import { checkNetworkDeclared } from './isolation-check.js';
import { checkLeakage, checkToolResultLeakage } from './leakage-checks.js';
import { probeNetwork } from './network-probe.js';
import { checkFloor, checkOracle, maximumReward } from './reward-checks.js';
import { checkSetupIdempotent, doubleSetupEnvironment } from './setup-idempotence.js';

export interface EnvironmentCheckOptions {
  environment: Environment;
  /** The examples to check (the first n of the dataset). */
  examples: readonly Example[];
  /** The same examples from a second load of the dataset, for id stability. */
  examplesAgain: readonly Example[];
  /** The agent expected to reach the maximum reward: the environment's own, or the reference-answer agent. */
  oracle: Agent;
  openRollouts: OpenRollouts;
  concurrency: number;
  /** The floor's mean must sit below the oracle's by margin × the maximum reward. */
  margin: number;
  /** How many times each oracle trajectory is scored. */
  scoringRepeats: number;
  abortSignal: AbortSignal;
  log?: (line: string) => void;
}

export async function runEnvironmentCheck(options: EnvironmentCheckOptions): Promise<EnvironmentCheckReport> {
  const { environment, examples } = options;
  const log = options.log ?? (() => undefined);
  const rescoring = rescoringEnvironment(environment, options.scoringRepeats);
  const common = { examples, openRollouts: options.openRollouts, concurrency: options.concurrency, abortSignal: options.abortSignal };
  log(`oracle ${options.oracle.name}: ${examples.length} rollouts, each scored ${options.scoringRepeats} times`);
  const oracleRun = await runAgent({ ...common, environment: rescoring.environment, agent: options.oracle });
  const floorAgent = emptyAnswerAgent();
  log(`floor ${floorAgent.name}: ${examples.length} rollouts`);
  const floorRun = await runAgent({ ...common, environment, agent: floorAgent });
  const tools = floorRun.tools.length > 0 ? floorRun.tools : oracleRun.tools;
  const doubled = doubleSetupEnvironment(environment);
  let twice: AgentRun | undefined;
  if (environment.setup) {
    log(`setup twice: ${examples.length} oracle rollouts with setup run twice on each sandbox`);
    twice = await runAgent({ ...common, environment: doubled.environment, agent: options.oracle });
  }
  log('network probe: 1 rollout');
  const networkProbe = await probeNetwork({ environment, example: examples[0], openRollouts: options.openRollouts, abortSignal: options.abortSignal });
  const checks = [
    checkOracle(oracleRun.records, maximumReward(environment.rubric), options.oracle.name),
    checkFloor(floorRun.records, oracleRun.records, maximumReward(environment.rubric), options.margin),
    checkDeterminism(rescoring.scores, options.scoringRepeats),
    ...checkLeakage(examples, environment.systemPrompt, tools),
    checkToolResultLeakage(examples, oracleRun.records),
    checkNetworkDeclared(environment, examples),
    networkProbe,
    checkSetupIdempotent(environment.setup !== undefined, oracleRun.records, twice?.records ?? [], doubled.states),
    checkToolDescriptions(tools),
    checkExampleIds(examples, options.examplesAgain),
    checkEnvironmentArgs(environment),
    checkTimeouts(environment),
  ];
  return reportOf({ environment: environment.name, oracle: options.oracle.name, floor: floorAgent.name, examples: examples.length }, checks);
}
