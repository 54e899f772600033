/**
 * The replay executor of the run driver: a rollout continues one source trajectory from turn K (the replay agent
 * does the continuing, inside the ordinary local rollout: environment session, rubric, cleanup). Source records that
 * errored or ended before turn K are not replayed. Each record gets its lineage: the source run and record, the turn
 * it continues from, which turns were copied (their tokens were sampled by the source's policy), and how tools went.
 * A source record that errored or ended before turn K is copied unchanged (lineage.copied), so groups stay whole.
 */
import type { RolloutExecutor } from '../run/rollout-executor.js';
import type { ResultRecord } from '../trajectory/result-record.js';
import { resultKey } from '../trajectory/result-record.js';
import type { RecordLineage } from '../trajectory/record-lineage.js';
import { type ReplayOutcome, type ReplayPlan, sourceKeyOf } from './replay-agent.js';

/** A source record can be replayed from turn K when it did not error and reached turn K. */
export const replayable = (record: ResultRecord, fromTurn: number) => record.error === null && record.turns >= fromTurn;

export function replayExecutor(plan: ReplayPlan, local: RolloutExecutor, outcomes: Map<string, ReplayOutcome>): RolloutExecutor {
  return {
    async run(work) {
      const key = sourceKeyOf(plan, work.example.id, work.rolloutIndex);
      const source = plan.source.byKey.get(key);
      if (!source) return undefined;
      if (!replayable(source, plan.fromTurn)) {
        // Copied as it is, so the example's group is whole: an errored source stays errored; one that ended before
        // turn K has nothing to continue (every turn of it is the source's).
        const turns = Array.from({ length: source.turns }, (_, index) => index + 1);
        const copied: RecordLineage = {
          kind: 'replay',
          source_run: plan.source.directory,
          source_record: key,
          from_turn: plan.fromTurn,
          replayed_turns: turns,
          tools: plan.tools,
          copied: true,
        };
        return { ...source, example_id: work.example.id, rollout_index: work.rolloutIndex, group: null, lineage: copied };
      }
      const record = await local.run(work);
      if (!record) return undefined;
      const outcome = outcomes.get(resultKey(work.example.id, work.rolloutIndex)) ?? {};
      outcomes.delete(resultKey(work.example.id, work.rolloutIndex));
      const lineage: RecordLineage = {
        kind: 'replay',
        source_run: plan.source.directory,
        source_record: key,
        from_turn: plan.fromTurn,
        replayed_turns: Array.from({ length: plan.fromTurn - 1 }, (_, index) => index + 1),
        tools: plan.tools,
        ...(outcome.prefixReproduced === undefined ? {} : { prefix_reproduced: outcome.prefixReproduced }),
        ...(outcome.toolMismatches === undefined ? {} : { recorded_tool_mismatches: outcome.toolMismatches }),
      };
      return { ...record, lineage };
    },
  };
}
