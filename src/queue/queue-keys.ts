/**
 * Every Redis name the queue uses, in one place: BullMQ's prefix and one queue per capability key (environment +
 * sandbox backend), and corral's own per-run keys (stored results, the done set, the results stream, run info),
 * the worker registry and pool-wide counters. All share the `corral` prefix so one Redis can hold other data too.
 */
import { createHash } from 'node:crypto';

export const QUEUE_PREFIX = 'corral';

/** What a job needs from a worker; workers subscribe to the capability keys they can serve. */
export interface Capability {
  /** The environment's name (environment.name), the same on every machine. */
  environment: string;
  /** 'any' when the run asked for --backend auto. */
  backend: 'docker' | 'process' | 'any';
}

/** BullMQ queue names may not contain ':'; anything outside [A-Za-z0-9._-] is replaced and a short hash keeps names apart. */
export function capabilityQueueName(capability: Capability): string {
  const raw = `${capability.environment}~${capability.backend}`;
  const safe = raw.replace(/[^A-Za-z0-9._~-]/g, '_');
  return safe === raw ? `rollouts~${raw}` : `rollouts~${safe}~${createHash('sha256').update(raw).digest('hex').slice(0, 8)}`;
}

export const runKeys = (runId: string) => ({
  /** SET of result keys (`exampleId#rolloutIndex`) already stored: the idempotence guard. */
  done: `${QUEUE_PREFIX}:run:${runId}:done`,
  /** HASH result key -> record JSON, until the producer has written it to results.jsonl. */
  records: `${QUEUE_PREFIX}:run:${runId}:records`,
  /** STREAM of (key, worker) entries in order of completion: what the producer reads. */
  stream: `${QUEUE_PREFIX}:run:${runId}:stream`,
  /** HASH of run facts: env, capability queue, enqueued count, started_at, producer. */
  info: `${QUEUE_PREFIX}:run:${runId}:info`,
});

/** SET of run ids a producer is driving, for `corral queue status`. */
export const RUNS_KEY = `${QUEUE_PREFIX}:runs`;
/** HASH worker name -> heartbeat JSON. */
export const WORKERS_KEY = `${QUEUE_PREFIX}:workers`;
/** HASH of pool-wide counters: completed, errored, retried, failed. */
export const STATS_KEY = `${QUEUE_PREFIX}:stats`;

/** BullMQ job ids may not contain ':' nor be integers; the id repeats the result key so a re-enqueue of a live job is a no-op. */
export function rolloutJobId(runId: string, exampleId: string, rolloutIndex: number): string {
  return `r.${runId}.${encodeURIComponent(exampleId)}.${rolloutIndex}`;
}

/** The run, example and rollout a job id names (rolloutJobId's inverse), for a job whose data cannot be read; null for other ids. */
export function parseRolloutJobId(jobId: string): { runId: string; exampleId: string; rolloutIndex: number } | null {
  const match = /^r\.([A-Za-z0-9_-]{1,64})\.(.*)\.(\d+)$/.exec(jobId);
  if (!match) return null;
  try {
    return { runId: match[1]!, exampleId: decodeURIComponent(match[2]!), rolloutIndex: Number(match[3]) };
  } catch {
    return null;
  }
}
