/**
 * Where a re-scored or replayed record came from (docs/rescore-replay.md). Absent on a rollout run from scratch.
 * A replayed record's first turns were copied from its source: their tokens were sampled by the source's policy,
 * so `replayed_turns` names them and the sample builder never trains on them as the new policy's tokens.
 */
export interface RecordLineage {
  kind: 'rescore' | 'replay';
  /** Absolute path of the source run directory. */
  source_run: string;
  /** The source record's key, `<example id>#<rollout index>`. */
  source_record: string;
  /** Replay: the first turn the new agent produced (turns before it are the source's). */
  from_turn?: number;
  /** Replay: the model turns (1-based) copied from the source record; a re-scored replay keeps its source's. */
  replayed_turns?: number[];
  /** Replay: where tool results after the prefix came from. */
  tools?: 'recorded' | 'live';
  /** Replay with live tools: whether re-running the prefix's calls in a fresh sandbox gave the recorded outputs. */
  prefix_reproduced?: boolean;
  /** Replay: the source record was copied unchanged (it errored, or ended before from_turn), not continued. */
  copied?: boolean;
  /** Replay with recorded tools: the agent's calls after the prefix that differed from the recording (each got an error result). */
  recorded_tool_mismatches?: number;
}
