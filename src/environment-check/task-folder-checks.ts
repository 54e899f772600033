/**
 * The checks only a terminal task folder has: the verifier does not pay for forged files (see forged-files.ts), every
 * task folder loads (a name used twice is a failure too: results and images key on it), and the agent and verifier
 * timeouts are positive and finite.
 */
import type { TaskLoadFailure, TerminalTask } from '../terminal/terminal-task.js';
import type { ResultRecord } from '../runner/trajectory/result-record.js';
import { type CheckResult, failed, passed } from './check-report.js';

const TOLERANCE = 1e-9;

/**
 * `forged`: the forging floor's records; `plain`: the plain nop agent's, for the tasks where the forging floor scored.
 * A task trusts agent files when its forged run scores above its plain run.
 */
export function checkVerifierTrust(
  forged: readonly ResultRecord[],
  plain: readonly ResultRecord[],
  planted: ReadonlyMap<string, readonly string[]>,
): CheckResult {
  const plainReward = new Map(plain.map((record) => [record.example_id, record.reward ?? 0]));
  const trusting = forged
    .filter((record) => (record.reward ?? 0) > (plainReward.get(record.example_id) ?? 0) + TOLERANCE)
    .map((record) => ({
      task: record.example_id,
      forged_reward: record.reward,
      nop_reward: plainReward.get(record.example_id) ?? 0,
      forged_paths: planted.get(record.example_id) ?? [],
    }));
  const forgedTasks = [...planted.values()].filter((paths) => paths.length > 0).length;
  const evidence = {
    tasks: forged.length,
    tasks_with_forgeries: forgedTasks,
    planted: Object.fromEntries([...planted].filter(([, paths]) => paths.length > 0)),
    trusting,
  };
  if (trusting.length > 0)
    return failed(
      'isolation.verifier-trusts-agent-files',
      'error',
      `the verifier pays for files a do-nothing agent forged on ${trusting.length} tasks (${trusting.map((item) => item.task).join(', ')}): it trusts paths the agent can write`,
      evidence,
    );
  return passed(
    'isolation.verifier-trusts-agent-files',
    `forging the paths the tests mention earned nothing on ${forgedTasks} of ${forged.length} tasks (the others mention none that is missing)`,
    evidence,
  );
}

export function checkTasksLoad(failures: readonly TaskLoadFailure[], loaded: number): CheckResult {
  const evidence = {
    loaded,
    failures: failures.map((failure) => ({ directory: failure.directory, code: failure.code, message: failure.message.slice(0, 300) })),
  };
  if (failures.length > 0) return failed('hygiene.tasks-load', 'error', `${failures.length} task folders do not load (${loaded} do)`, evidence);
  return passed('hygiene.tasks-load', `${loaded} task folders load`, evidence);
}

export function checkTaskTimeouts(tasks: readonly TerminalTask[]): CheckResult {
  const bad = tasks
    .filter((task) => ![task.agent.timeoutSec, task.verifier.timeoutSec].every((value) => Number.isFinite(value) && value > 0))
    .map((task) => ({ task: task.name, agent_timeout_sec: task.agent.timeoutSec, verifier_timeout_sec: task.verifier.timeoutSec }));
  const evidence = { tasks: tasks.length, bad };
  if (bad.length > 0)
    return failed('hygiene.timeouts', 'error', `${bad.length} tasks have an agent or verifier timeout that is not a positive number`, evidence);
  return passed('hygiene.timeouts', `${tasks.length} tasks, each with positive agent and verifier timeouts`, evidence);
}
