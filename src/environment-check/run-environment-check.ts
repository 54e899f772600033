/**
 * The battery of `corral env check`: the oracle's run (every trajectory scored N times), the empty-answer floor's
 * run and one network-probe rollout, all through the one run driver, then the static checks over the examples, the tools the agents saw and the
 * environment's declarations. An environment that talks back (`respond`) is played as a conversation by both
 * agents, and the oracle plays it a second time (replies.deterministic); one with roles is measured role by role
 * (lineups.ts). Returns the versioned report; the caller decides the exit code (1 on any error).
 */
import { CorralError } from '../core/errors.js';
import type { Agent } from '../runner/agents/agent.js';
import type { Environment, Example } from '../runner/contract/environment.js';
import type { ResultRecord } from '../runner/trajectory/result-record.js';
import { type AgentRun, type OpenRollouts, runAgent } from './agent-runs.js';
import { emptyAnswerAgent } from './check-agents.js';
import { type CheckResult, type EnvironmentCheckReport, reportOf } from './check-report.js';
import { checkDeterminism, rescoringEnvironment } from './determinism-check.js';
import { checkEnvironmentArgs, checkExampleIds, checkTimeouts, checkToolDescriptions } from './hygiene-checks.js';
import { checkNetworkDeclared } from './isolation-check.js';
import { checkLeakage, checkToolResultLeakage } from './leakage-checks.js';
import { type Lineup, floorLineups, measuredRecords, oracleLineups } from './lineups.js';
import { probeNetwork } from './network-probe.js';
import { checkRepliesDeterministic } from './replies-determinism.js';
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
  /** Environments with roles: each role's oracle where it is not `oracle` (roleOracleNames in check-agents.ts). */
  roleOracles?: Readonly<Record<string, Agent>>;
  openRollouts: OpenRollouts;
  concurrency: number;
  /** The floor's mean must sit below the oracle's by margin × the maximum reward. */
  margin: number;
  /** How many times each oracle trajectory is scored. */
  scoringRepeats: number;
  abortSignal: AbortSignal;
  log?: (line: string) => void;
}

/** The records of a set of lineups: as played (raw) and as the measured role's (measured), and the tools seen. */
interface LineupRuns {
  raw: ResultRecord[];
  measured: ResultRecord[];
  /** The first lineup's measured records (the first role's seat). */
  first: ResultRecord[];
  tools: AgentRun['tools'];
}

export async function runEnvironmentCheck(options: EnvironmentCheckOptions): Promise<EnvironmentCheckReport> {
  const { environment, examples } = options;
  const log = options.log ?? (() => undefined);
  const roleOracles = options.roleOracles ?? {};
  refuseSilentOracles(environment, [options.oracle, ...Object.values(roleOracles)]);
  const rescoring = rescoringEnvironment(environment, options.scoringRepeats);
  const common = { examples, openRollouts: options.openRollouts, concurrency: options.concurrency, abortSignal: options.abortSignal };
  const play = async (checked: Environment, lineups: readonly Lineup[]): Promise<LineupRuns> => {
    const runs: LineupRuns = { raw: [], measured: [], first: [], tools: null };
    for (const [index, lineup] of lineups.entries()) {
      const run = await runAgent({ ...common, environment: checked, agent: lineup.agent, ...(lineup.roleAgents ? { roleAgents: lineup.roleAgents } : {}) });
      const measured = measuredRecords(run.records, lineup.measured);
      runs.raw.push(...run.records);
      runs.measured.push(...measured);
      if (index === 0) runs.first = measured;
      runs.tools ??= run.tools;
    }
    return runs;
  };
  const floorAgent = emptyAnswerAgent();
  const roles = environment.roles;
  const oracles = oracleLineups(roles, options.oracle, roleOracles, floorAgent);
  const seats = roles ? ` in each of ${roles.length} roles against the floor in the others` : '';
  log(`oracle ${options.oracle.name}${seats}: ${examples.length} rollouts each, each scored ${options.scoringRepeats} times`);
  const oracleRuns = await play(rescoring.environment, oracles);
  log(`floor ${floorAgent.name}${roles ? ` in each of ${roles.length} roles against the oracles in the others` : ''}: ${examples.length} rollouts each`);
  const floorRuns = await play(environment, floorLineups(roles, options.oracle, roleOracles, floorAgent));
  const tools = floorRuns.tools ?? oracleRuns.tools;
  // One lineup is enough for what is measured on the oracle alone: the first role's seat.
  const firstLineup = oracles.slice(0, 1);
  let repliesCheck: CheckResult | null = null;
  if (environment.respond) {
    log(`replies: the oracle plays ${examples.length} examples again`);
    const again = await play(environment, firstLineup);
    repliesCheck = checkRepliesDeterministic(oracleRuns.first, again.measured);
  }
  const doubled = doubleSetupEnvironment(environment);
  let twice: LineupRuns | undefined;
  if (environment.setup) {
    log(`setup twice: ${examples.length} oracle rollouts with setup run twice on each sandbox`);
    twice = await play(doubled.environment, firstLineup);
  }
  log('network probe');
  const networkProbe = await probeNetwork({
    environment,
    example: examples[0],
    tools,
    openRollouts: options.openRollouts,
    abortSignal: options.abortSignal,
  });
  const maximum = maximumReward(environment.rubric);
  const checks = [
    checkOracle(oracleRuns.measured, maximum, options.oracle.name),
    checkFloor(floorRuns.measured, oracleRuns.measured, maximum, options.margin),
    checkDeterminism(rescoring.scores, options.scoringRepeats),
    ...(repliesCheck ? [repliesCheck] : []),
    ...checkLeakage(examples, environment.systemPrompt, tools ?? []),
    checkToolResultLeakage(examples, oracleRuns.raw),
    checkNetworkDeclared(environment, examples),
    networkProbe,
    checkSetupIdempotent(environment.setup !== undefined, oracleRuns.first, twice?.measured ?? [], doubled.states),
    checkToolDescriptions(tools ?? []),
    checkExampleIds(examples, options.examplesAgain),
    checkEnvironmentArgs(environment),
    checkTimeouts(environment),
  ];
  const rolesCast = roles?.map((role) => ({ role, oracle: (roleOracles[role] ?? options.oracle).name }));
  return reportOf(
    {
      environment: environment.name,
      oracle: rolesCast ? [...new Set(rolesCast.map((each) => each.oracle))].join(', ') : options.oracle.name,
      floor: floorAgent.name,
      examples: examples.length,
      ...(rolesCast ? { roles: rolesCast } : {}),
    },
    checks,
  );
}

/** An environment that talks back needs oracles that answer again after its reply; say so in env check's words. */
function refuseSilentOracles(environment: Environment, oracles: readonly Agent[]): void {
  if (!environment.respond) return;
  const silent = oracles.find((agent) => agent.takesEnvironmentReplies !== true);
  if (!silent) return;
  throw new CorralError(
    'ENV_ERR_REPLIES_UNSUPPORTED',
    `environment ${environment.name} answers turns itself (respond), and the oracle ${silent.name} cannot continue the conversation after a reply: export an oracle agent that sets takesEnvironmentReplies: true and calls input.environmentReply() after each answer (docs/environment-check.md), or pass --oracle`,
    { details: { environment: environment.name, agent: silent.name } },
  );
}
