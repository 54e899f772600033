/**
 * The runner half of the rollout API's stale-work policy (the HTTP half, deadline timer and step clocks, is
 * http/rollouts-expiry.ts). It wraps the request's executor so that no rollout starts once the request has expired,
 * follows which rollouts are running and finished, holds back groups that finish after the cutoff, and after the run
 * names every planned rollout that was not streamed. A cancelled rollout is never a record: not scored, not in a
 * group's statistics, not a sample.
 */
import type { CancelledRollout, RolloutExpiry } from '../../http/rollouts-contract.js';
import type { Example } from '../../runner/contract/environment.js';
import type { RolloutExecutor } from '../../runner/run/rollout-executor.js';
import { type ResultRecord, resultKey } from '../../runner/trajectory/result-record.js';

export class ExpiringRollouts {
  private readonly states = new Map<string, 'running' | 'finished'>();
  private readonly streamed = new Set<string>();

  constructor(
    private readonly expiry: RolloutExpiry,
    private readonly planned: readonly Example[],
    private readonly rolloutsPerExample: number,
  ) {}

  /** The run's signal: the caller's, or the expiry's, whichever fires first. */
  signal(abortSignal: AbortSignal): AbortSignal {
    return AbortSignal.any([abortSignal, this.expiry.signal]);
  }

  /** The executor whose rollouts never start past the cutoff (checked at the start, not only when the timer fires). */
  wrap(executor: RolloutExecutor): RolloutExecutor {
    return {
      run: async (work) => {
        if (this.expiry.check() !== undefined) return undefined;
        const key = resultKey(work.example.id, work.rolloutIndex);
        this.states.set(key, 'running');
        const record = await executor.run(work);
        if (record && record.error?.code !== 'RUNNER_ERR_CANCELLED') this.states.set(key, 'finished');
        return record;
      },
      ...(executor.retriesInside === undefined ? {} : { retriesInside: executor.retriesInside }),
      ...(executor.plan ? { plan: (example: Example, rollouts: number) => executor.plan!(example, rollouts) } : {}),
      ...(executor.begin ? { begin: (written: ReadonlySet<string>) => executor.begin!(written) } : {}),
      ...(executor.written ? { written: (keys: readonly string[]) => executor.written!(keys) } : {}),
      ...(executor.end ? { end: (outcome: Parameters<NonNullable<RolloutExecutor['end']>>[0]) => executor.end!(outcome) } : {}),
    };
  }

  /** True when the group may be streamed; false once the request has expired (its rollouts are then reported cancelled). */
  streamGroup(records: readonly ResultRecord[]): boolean {
    if (this.expiry.check() !== undefined) return false;
    for (const record of records) this.streamed.add(resultKey(record.example_id, record.rollout_index));
    return true;
  }

  /** After the run: every planned rollout not streamed, in plan order; none when the request never expired. */
  cancelled(): CancelledRollout[] {
    if (this.expiry.check() === undefined) return [];
    const cancelled: CancelledRollout[] = [];
    for (const example of this.planned) {
      for (let rolloutIndex = 0; rolloutIndex < this.rolloutsPerExample; rolloutIndex++) {
        const key = resultKey(example.id, rolloutIndex);
        if (!this.streamed.has(key)) cancelled.push({ example_id: example.id, rollout_index: rolloutIndex, state: this.states.get(key) ?? 'waiting' });
      }
    }
    return cancelled;
  }
}
