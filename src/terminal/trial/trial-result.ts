import type { FinalFileSystemOutcome } from './final-file-system.js';

/** What one trial produced: plain data the CLI turns into a results.jsonl record and Harbor's trial folder. */
export type TrialPhase = 'image' | 'container' | 'agent' | 'verifier';

export interface TrialFailure {
  code: string;
  message: string;
  /** The phase that failed. An agent phase errors the trial only when the agent could not work (its model failed, not its own attempt). */
  phase: TrialPhase;
  details?: Record<string, unknown>;
}

export interface PhaseWindow {
  startedAt: string;
  finishedAt: string;
}

export interface TrialResult {
  task: string;
  agent: string;
  /** The reward; null when the trial errored (never 0 for a missing reward). */
  reward: number | null;
  /** Every metric of reward.json, or {reward} from reward.txt; null when errored. */
  rewards: Record<string, number> | null;
  rewardSource: 'reward.json' | 'reward.txt' | null;
  /** Why the trial has no reward. */
  error: TrialFailure | null;
  agentPhase: {
    exitCode: number | null;
    /** The agent ran past [agent].timeout_sec x --timeout-multiplier and was stopped; it was still verified. */
    timedOut: boolean;
    /** The agent failed (threw, or its container died); it was still verified. */
    error: { code: string; message: string } | null;
    summary: string | null;
    details: Record<string, unknown>;
  };
  verifierPhase: { exitCode: number | null; timedOut: boolean } | null;
  /** The agent's final file system as kept in the trial folder for re-verifying; null when the trial never reached the verifier or keeping was off. */
  finalFileSystem: FinalFileSystemOutcome | null;
  /** ms per phase: image (build or cache check), container start, agent, verifier (commit included). */
  timings: {
    image_ms: number;
    container_start_ms: number;
    container_wait_ms: number;
    agent_ms: number;
    verifier_ms: number;
    commit_ms: number;
    /** Verifier container start to exit (test.sh's own run). */
    test_ms: number;
    total_ms: number;
  };
  /** Wall-clock windows, for Harbor's started_at / finished_at per phase. */
  windows: { trial: PhaseWindow; container?: PhaseWindow; agent?: PhaseWindow; verifier?: PhaseWindow };
  /** Host folders under the trial directory: agent/ (/logs/agent), verifier/ (/logs/verifier), artifacts/. */
  directories: { trial: string; agent: string | null; verifier: string | null; artifacts: string | null };
}
