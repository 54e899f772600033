/**
 * `corral env check` for a Harbor / Terminal-Bench task folder: the tasks are the examples, the verifier is the
 * rubric. The oracle (each task's solution/solve.sh) must reach reward 1; the floor is the nop agent with forged
 * files in place (forged-files.ts), and where that floor scores, the plain nop agent runs too, to tell a verifier
 * that pays for nothing (floor.below-oracle) from one that pays for forgeries (isolation.verifier-trusts-agent-files).
 * Every trial runs through the one run driver with the trial executor the caller makes for an agent.
 */
import type { Example } from '../runner/contract/environment.js';
import type { RolloutExecutor } from '../runner/run/rollout-executor.js';
import { runDriver } from '../runner/run/run-driver.js';
import type { ResultRecord } from '../runner/trajectory/result-record.js';
import type { TaskLoadFailure, TerminalTask } from '../terminal/terminal-task.js';
import { nopAgent } from '../terminal/trial/nop-agent.js';
import { oracleAgent } from '../terminal/trial/oracle-agent.js';
import type { TrialAgent } from '../terminal/trial/trial-agent.js';
import { type EnvironmentCheckReport, reportOf } from './check-report.js';
import { forgeryCandidates, forgingNopAgent } from './forged-files.js';
import { checkFloor, checkOracle } from './reward-checks.js';
import { checkTaskTimeouts, checkTasksLoad, checkVerifierTrust } from './task-folder-checks.js';

/** A verifier's reward is the share of tests passed: 1 is full marks. */
const TASK_MAXIMUM_REWARD = 1;

export interface TaskFolderCheckOptions {
  /** The report's environment name (the folder's). */
  name: string;
  tasks: readonly TerminalTask[];
  failures: readonly TaskLoadFailure[];
  /** The trial executor for an agent (one image build and one container pool behind all of them). */
  executorFor: (agent: TrialAgent) => RolloutExecutor;
  /** As a task example: the CLI passes the trial executor's taskExample. */
  exampleOf: (task: TerminalTask) => Example;
  concurrency: number;
  margin: number;
  abortSignal: AbortSignal;
  log?: (line: string) => void;
}

export async function runTaskFolderCheck(options: TaskFolderCheckOptions): Promise<EnvironmentCheckReport> {
  const log = options.log ?? (() => undefined);
  const head = { environment: options.name, oracle: oracleAgent.name, floor: nopAgent.name, examples: options.tasks.length };
  // Nothing to run: the report still says why (the folders that do not load), rather than the command failing bare.
  if (options.tasks.length === 0) return reportOf(head, [checkTasksLoad(options.failures, 0)]);
  const examples = options.tasks.map(options.exampleOf);
  const trials = (agent: TrialAgent, only: readonly Example[] = examples) => runTrials(options, agent, only);
  log(`oracle: ${examples.length} trials (solution/solve.sh)`);
  const oracle = await trials(oracleAgent);
  const candidates = new Map(await Promise.all(options.tasks.map(async (task) => [task.name, await forgeryCandidates(task)] as const)));
  const planted = new Map<string, string[]>();
  log(`floor: ${examples.length} trials of the nop agent with forged files where the tests read`);
  const forged = await trials(forgingNopAgent(candidates, planted));
  const scored = new Set(forged.filter((record) => (record.reward ?? 0) > 0).map((record) => record.example_id));
  let plain: ResultRecord[] = [];
  if (scored.size > 0) {
    log(`floor: the forged floor scored on ${scored.size} tasks; ${scored.size} trials of the plain nop agent`);
    plain = await trials(
      nopAgent,
      examples.filter((example) => scored.has(example.id)),
    );
  }
  // The floor is the plain nop's reward where it ran, else the forged run's (which scored 0 there).
  const plainById = new Map(plain.map((record) => [record.example_id, record]));
  const floor = forged.map((record) => plainById.get(record.example_id) ?? record);
  const checks = [
    checkOracle(oracle, TASK_MAXIMUM_REWARD, oracleAgent.name),
    checkFloor(floor, oracle, TASK_MAXIMUM_REWARD, options.margin),
    checkVerifierTrust(forged, plain, planted),
    checkTasksLoad(options.failures, options.tasks.length),
    checkTaskTimeouts(options.tasks),
  ];
  return reportOf(head, checks);
}

/** One trial per example through the run driver, records kept in memory (nothing is resumed). */
async function runTrials(options: TaskFolderCheckOptions, agent: TrialAgent, examples: readonly Example[]): Promise<ResultRecord[]> {
  const records: ResultRecord[] = [];
  await runDriver({
    task: 'terminal',
    examples,
    rolloutsPerExample: 1,
    concurrency: options.concurrency,
    executor: options.executorFor(agent),
    sink: { existing: [], writeGroup: (group) => void records.push(...group) },
    abortSignal: options.abortSignal,
    ...(options.log ? { log: options.log } : {}),
  });
  return records;
}
