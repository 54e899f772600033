/**
 * Where a re-scored, replayed or forked record came from (docs/rescore-replay.md, docs/episodes-api.md "Fork").
 * Absent on a rollout run from scratch. A replayed record's first turns were copied from its source: their tokens
 * were sampled by the source's policy, so `replayed_turns` names them and the sample builder never trains on them as
 * the new policy's tokens. A forked episode's first turns are its parent's, taken by the same trainer's policy: they
 * stay in its samples (each child's samples start with the same prefix).
 */
export interface RecordLineage {
  kind: 'rescore' | 'replay' | 'fork';
  /** Rescore, replay: absolute path of the source run directory. Absent for a fork (an episode has no run folder). */
  source_run?: string;
  /** Rescore, replay: the source record's key, `<example id>#<rollout index>`. Fork: the parent episode's id. */
  source_record: string;
  /** Replay: the first turn the new agent produced (turns before it are the source's). Fork: the parent's turns + 1. */
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
