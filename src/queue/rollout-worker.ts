/**
 * The BullMQ side of `corral worker`: one BullMQ Worker per capability queue this process serves, the worker's own
 * admission controller in front of its rollouts (a fixed `-c N`, or `-c auto` paced by this worker's model calls,
 * sandbox waits and memory; BullMQ fetches no more jobs per queue than the controller's level), and the job
 * protocol: skip a key already stored (a retry of a finished rollout), run the rollout, store its record
 * (idempotently), and only then return, which acknowledges the job. A lease (--lease-ms) is BullMQ's lockDuration:
 * a worker that is SIGKILLed or cut off stops renewing its locks and its jobs go back to the queue at the next
 * stalled check; they are never failed for it. Transient infrastructure failures are retried through the queue, so
 * another worker may take the next attempt.
 */
import { type Job, UnrecoverableError, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { hostname } from 'node:os';
import PQueue from 'p-queue';
import { CorralError } from '../core/errors.js';
import { AdmissionController } from '../runner/run/admission/admission-controller.js';
import { RETRYABLE_BOUNDARIES } from '../runner/run/run-driver.js';
import type { ResultRecord } from '../runner/trajectory/result-record.js';
import { resultKey } from '../runner/trajectory/result-record.js';
import { erroredRecord } from '../runner/run/errored-record.js';
import { QUEUE_PREFIX, STATS_KEY, capabilityQueueName, parseRolloutJobId } from './queue-keys.js';
import { openRedis, quiet } from './redis-connection.js';
import { ResultStore } from './result-store.js';
import { isRunCancelled } from './run-cancellation.js';
import { type RolloutJob, decodeRolloutJob } from './rollout-job.js';
import { TolerantWorker } from './tolerant-worker.js';
import { type WorkerCapabilities, type WorkerHeartbeat, publishHeartbeat, removeWorker } from './worker-registry.js';

/**
 * Runs one job's rollout on this worker (not the run driver's RolloutExecutor). Rollout failures are records
 * (never thrown); a throw means this worker could not run it at all.
 */
export interface JobRunner {
  run(job: RolloutJob, context: { attempt: number; abortSignal: AbortSignal }): Promise<ResultRecord>;
}

export interface RolloutWorkerOptions {
  redisUrl: URL;
  name: string;
  capabilities: WorkerCapabilities;
  /** The sandbox backend this worker runs: it serves jobs that need it and jobs that need any ('isolate': only those). */
  backend: 'docker' | 'process' | 'isolate';
  /** Rollouts at once: a fixed number, or this worker's own auto controller (its ceiling bounds the jobs it holds). */
  concurrency: number | AdmissionController;
  leaseMs: number;
  jobRunner: JobRunner;
  log: (line: string) => void;
  /** Heartbeat period (default 2 s). */
  heartbeatMs?: number;
}

export interface RolloutWorkerStats {
  running: number;
  completed: number;
  errored: number;
  duplicates: number;
  retried: number;
  failed: number;
  /** Jobs of a cancelled run, or past their request's deadline, skipped without running. */
  cancelled: number;
}

export const HEARTBEAT_MS = 2_000;
const RUN_CANCELLED = Symbol('run-cancelled');
/** Stalls (a lost lease) never fail a job: a rollout is retried elsewhere however often its workers die. */
const MAX_STALLED = 1_000_000;

export class RolloutWorker {
  readonly stats: RolloutWorkerStats = { running: 0, completed: 0, errored: 0, duplicates: 0, retried: 0, failed: 0, cancelled: 0 };
  readonly queues: string[];
  /** Every worker has its own: the rollouts it runs and the load they meet are its own, not the producer's. */
  readonly admission: AdmissionController;
  private readonly workers: Worker[] = [];
  /** BullMQ leaves connections it was given open: closed by drain(). */
  private readonly connections: Redis[] = [];
  private readonly slots: PQueue;
  private readonly store: ResultStore;
  private readonly forced = new AbortController();
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private state: WorkerHeartbeat['state'] = 'ready';
  private readonly startedAt = new Date().toISOString();

  private constructor(
    private readonly options: RolloutWorkerOptions,
    private readonly redis: Redis,
  ) {
    this.store = new ResultStore(redis);
    this.admission =
      typeof options.concurrency === 'number' ? new AdmissionController({ mode: 'fixed', maxConcurrency: options.concurrency }) : options.concurrency;
    this.slots = new PQueue({ concurrency: this.admission.maxConcurrency });
    const backend = options.backend;
    const names = options.capabilities.environments.flatMap((environment) => [
      ...(backend === 'isolate' ? [] : [capabilityQueueName({ environment, backend })]),
      capabilityQueueName({ environment, backend: 'any' }),
    ]);
    this.queues = [...new Set(names)];
  }

  static async start(options: RolloutWorkerOptions): Promise<RolloutWorker> {
    const redis = openRedis(options.redisUrl);
    const worker = new RolloutWorker(options, redis);
    await worker.beat();
    for (const queue of worker.queues) {
      const connection = quiet(redis.duplicate());
      worker.connections.push(connection);
      const bull = new TolerantWorker(queue, (job) => worker.process(job), {
        connection,
        prefix: QUEUE_PREFIX,
        name: options.name,
        concurrency: worker.admission.level,
        lockDuration: options.leaseMs,
        stalledInterval: Math.max(500, Math.floor(options.leaseMs / 2)),
        maxStalledCount: MAX_STALLED,
        removeOnComplete: { count: 0 },
        removeOnFail: { count: 1_000 },
        drainDelay: 1,
      });
      // Redis restarts and cut links surface here; BullMQ reconnects by itself.
      bull.on('error', (error) => options.log(`queue ${queue}: ${error.message}`));
      worker.workers.push(bull);
    }
    await Promise.all(worker.workers.map((bull) => bull.waitUntilReady()));
    worker.followAdmission();
    worker.heartbeatTimer = setInterval(() => void worker.beat().catch(() => undefined), options.heartbeatMs ?? HEARTBEAT_MS);
    worker.heartbeatTimer.unref();
    return worker;
  }

  /** SIGTERM: take no new jobs, finish the running ones (their records stored and acknowledged), leave the registry. */
  async drain(): Promise<void> {
    this.state = 'draining';
    await this.beat().catch(() => undefined);
    await Promise.all(this.workers.map((bull) => bull.close()));
    await this.slots.onIdle();
    clearInterval(this.heartbeatTimer);
    await removeWorker(this.redis, this.options.name).catch(() => undefined);
    await this.redis.quit().catch(() => undefined);
    for (const connection of this.connections) connection.disconnect();
  }

  /**
   * BullMQ takes jobs up to the level, so a worker cut back by its endpoint leaves the jobs it cannot run yet to other
   * workers instead of holding them at its gate; cuts are logged with their reason.
   */
  private followAdmission(): void {
    let level = this.admission.level;
    this.admission.onChange((snapshot) => {
      if (snapshot.level === level) return;
      if (snapshot.level < level) this.options.log(`admission: level ${level} -> ${snapshot.level} (${snapshot.reason})`);
      level = snapshot.level;
      for (const bull of this.workers) bull.concurrency = level;
    });
  }

  /** A second SIGTERM: cancel running rollouts; their jobs return to the queue when the lease runs out. */
  abortRunning(): void {
    this.forced.abort();
  }

  private async process(job: Job): Promise<string> {
    return this.slots.add(() => this.processNow(job), { throwOnTimeout: true });
  }

  private async processNow(job: Job): Promise<string> {
    const unreadable = TolerantWorker.unreadable.get(job);
    if (unreadable !== undefined) return this.failInvalid(job, new CorralError('QUEUE_ERR_INVALID_JOB', unreadable));
    let payload: RolloutJob;
    try {
      payload = decodeRolloutJob(job.data);
    } catch (error) {
      // Another worker (another corral version) may read it; after the last attempt the producer gets an errored record.
      if (job.attemptsMade + 1 < (job.opts.attempts ?? 1)) throw error;
      return this.failInvalid(job, error);
    }
    if (pastDeadline(payload) || (await isRunCancelled(this.redis, payload.run_id))) {
      this.stats.cancelled++;
      return 'run-cancelled';
    }
    const key = resultKey(payload.example.id, payload.rollout_index);
    if (await this.store.isStored(payload.run_id, key)) {
      this.stats.duplicates++;
      return 'already-stored';
    }
    const attempt = job.attemptsMade + 1;
    const attempts = job.opts.attempts ?? 1;
    let record: ResultRecord | typeof RUN_CANCELLED | undefined;
    try {
      // Through the gate, so the model client's and the pool's load signals reach this worker's controller.
      record = await this.admission.run(this.forced.signal, async () => {
        // A job may wait at the gate (the level was cut after BullMQ took it) past its deadline, or while its run is cancelled.
        if (pastDeadline(payload) || (await isRunCancelled(this.redis, payload.run_id))) return RUN_CANCELLED;
        this.stats.running++;
        try {
          return await this.options.jobRunner.run(payload, { attempt, abortSignal: this.forced.signal });
        } finally {
          this.stats.running--;
        }
      });
    } catch (error) {
      // A refused job is refused by every worker that holds the same environment: no retry.
      const refused = CorralError.hasCode(error, 'QUEUE_ERR_JOB_REFUSED');
      if (refused) this.options.log(`${error.code}: ${error.message}`);
      if (!refused && attempt < attempts && !this.forced.signal.aborted) {
        this.stats.retried++;
        throw error;
      }
      this.stats.failed++;
      await this.redis.hincrby(STATS_KEY, 'failed', 1).catch(() => 0);
      record = failedRecord(payload, error, attempt);
    }
    if (record === RUN_CANCELLED) {
      this.stats.cancelled++;
      return 'run-cancelled';
    }
    // A forced stop cancels the rollout (or its wait at the gate): leave the job to expire and run again elsewhere, never store it.
    if (record === undefined || record.error?.code === 'RUNNER_ERR_CANCELLED')
      throw new CorralError('RUNNER_ERR_CANCELLED', 'worker stopping: rollout returned to the queue');
    const retryable = record.error?.transient === true && RETRYABLE_BOUNDARIES.has(record.error.boundary);
    if (retryable && attempt < attempts) {
      this.stats.retried++;
      await this.redis.hincrby(STATS_KEY, 'retried', 1);
      throw new CorralError('QUEUE_ERR_WORKER_FAILED', `transient ${record.error!.code}: retrying through the queue (attempt ${attempt} of ${attempts})`);
    }
    record.attempts = attempt;
    record.extra = { ...(record.extra as Record<string, unknown> | undefined), worker: this.options.name };
    const stored = await this.store.store(payload.run_id, record, this.options.name);
    if (!stored) this.stats.duplicates++;
    else if (record.error) this.stats.errored++;
    else this.stats.completed++;
    return stored ? 'stored' : 'already-stored';
  }

  /**
   * A job no worker can read: an errored record goes to its run (so the producer never waits for it), and the job
   * is failed, not retried, so `corral queue status` lists it. A job that does not even name its rollout is only failed.
   */
  private async failInvalid(job: Job, error: unknown): Promise<never> {
    this.stats.failed++;
    await this.redis.hincrby(STATS_KEY, 'failed', 1).catch(() => 0);
    const identity = looseJob(job.data) ?? jobFromId(String(job.id));
    if (identity) await this.store.store(identity.run_id, failedRecord(identity, error, job.attemptsMade + 1), this.options.name);
    throw new UnrecoverableError((error as Error).message);
  }

  private async beat(): Promise<void> {
    await publishHeartbeat(this.redis, {
      name: this.options.name,
      host: hostname(),
      pid: process.pid,
      capabilities: this.options.capabilities,
      queues: this.queues,
      concurrency: this.admission.level,
      lease_ms: this.options.leaseMs,
      running: this.stats.running,
      completed: this.stats.completed + this.stats.errored,
      failed: this.stats.failed,
      state: this.state,
      started_at: this.startedAt,
      last_heartbeat: new Date().toISOString(),
    });
  }
}

/** A job of a rollout API request whose deadline has passed: its producer has cancelled it, or is about to. */
const pastDeadline = (job: RolloutJob) => job.deadline !== undefined && Date.now() >= Date.parse(job.deadline);

/** What a job that fails validation still says about itself, enough for its errored record; null when not even that. */
function looseJob(data: unknown): RolloutJob | null {
  const value = data as { run_id?: unknown; rollout_index?: unknown; example?: { id?: unknown; prompt?: unknown }; environment?: { name?: unknown } } | null;
  if (typeof value?.run_id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(value.run_id)) return null;
  if (typeof value.example?.id !== 'string' || typeof value.rollout_index !== 'number') return null;
  return {
    run_id: value.run_id,
    rollout_index: value.rollout_index,
    example: { id: value.example.id, prompt: typeof value.example.prompt === 'string' ? value.example.prompt : '' },
    environment: { name: typeof value.environment?.name === 'string' ? value.environment.name : '' },
  } as RolloutJob;
}

/** What a job id alone says (rolloutJobId names run, example and rollout), for a job whose data is unreadable. */
function jobFromId(jobId: string): RolloutJob | null {
  const parsed = parseRolloutJobId(jobId);
  if (!parsed) return null;
  return { run_id: parsed.runId, rollout_index: parsed.rolloutIndex, example: { id: parsed.exampleId, prompt: '' }, environment: { name: '' } } as RolloutJob;
}

/** The record of a rollout the worker could not run after every attempt: errored (boundary runner), never scored. */
function failedRecord(job: RolloutJob, error: unknown, attempt: number): ResultRecord {
  const message = error instanceof Error ? error.message : String(error);
  const code = CorralError.isInstance(error) ? error.code : 'QUEUE_ERR_WORKER_FAILED';
  return erroredRecord(job, { code, message }, attempt);
}
