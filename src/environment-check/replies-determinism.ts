/**
 * replies.deterministic, for environments that talk back (`respond`): the oracle plays each example a second time and
 * the environment must answer the same moves with the same replies and the same reward, or a run's rewards move
 * with the replies rather than with the agent. Where the replies come from a simulated user (a second model: the
 * record has user_calls), a sampled user may rightly say other words, so its spread is reported as a warning, as a
 * judge rubric's is; a programmatic respond that differs is an error. Rollouts that errored in either run are not
 * compared (oracle.max-reward lists them).
 */
import type { ChatMessage } from '../runner/trajectory/messages.js';
import type { ResultRecord } from '../runner/trajectory/result-record.js';
import { type CheckResult, failed, passed } from './check-report.js';

const TOLERANCE = 1e-9;

/** The environment's words in a rollout: user and system messages after the prompt, every role's. */
function replies(record: ResultRecord): string[] {
  const conversations: ChatMessage[][] = record.roles ? record.roles.map((role) => role.completion) : [record.completion];
  return conversations.flatMap((messages) =>
    messages.filter((message) => message.role === 'user' || message.role === 'system').map((message) => String(message.content ?? '')),
  );
}

export function checkRepliesDeterministic(first: readonly ResultRecord[], second: readonly ResultRecord[]): CheckResult {
  const again = new Map(second.map((record) => [record.example_id, record]));
  const pairs = first
    .map((record) => [record, again.get(record.example_id)] as const)
    .filter((pair): pair is readonly [ResultRecord, ResultRecord] => pair[1] !== undefined && pair[0].error === null && pair[1].error === null);
  const differing = pairs.flatMap(([one, two]) => {
    const [repliesOne, repliesTwo] = [replies(one), replies(two)];
    const at = repliesOne.findIndex((text, index) => text !== repliesTwo[index]);
    const index = at >= 0 ? at : repliesOne.length !== repliesTwo.length ? Math.min(repliesOne.length, repliesTwo.length) : -1;
    const rewardMoved = Math.abs((one.reward ?? 0) - (two.reward ?? 0)) > TOLERANCE;
    if (index < 0 && !rewardMoved) return [];
    const simulated = (one.user_calls?.length ?? 0) > 0 || (two.user_calls?.length ?? 0) > 0;
    const reply = index < 0 ? null : { index, first: repliesOne[index]?.slice(0, 200) ?? null, second: repliesTwo[index]?.slice(0, 200) ?? null };
    return [{ example: one.example_id, rewards: [one.reward, two.reward], simulated_user: simulated, reply }];
  });
  const evidence = { runs: 2, compared: pairs.length, differing: differing.slice(0, 20), differing_count: differing.length };
  if (pairs.length === 0) return failed('replies.deterministic', 'warning', 'no example was played twice without an error: nothing to compare', evidence);
  if (differing.length === 0)
    return passed('replies.deterministic', `the oracle played ${pairs.length} examples twice and got the same replies and rewards`, evidence);
  const userOnly = differing.every((each) => each.simulated_user);
  const moved = differing.filter((each) => Math.abs((each.rewards[0] ?? 0) - (each.rewards[1] ?? 0)) > TOLERANCE).length;
  return failed(
    'replies.deterministic',
    userOnly ? 'warning' : 'error',
    `the same moves got other replies on ${differing.length} of ${pairs.length} examples (reward moved on ${moved})${userOnly ? ': a simulated user samples its replies' : ''}`,
    evidence,
  );
}
