/**
 * A BullMQ Worker that survives a job hash whose `data` is not JSON. BullMQ parses the data after moving the job to
 * `active`; the parse error escapes its loop, so the job sits in `active` until its lock expires, goes back to
 * `wait`, and is taken again, for ever. Here such a job is handed to the processor with no data and its reason
 * noted in `unreadable`, so the processor can fail it and store an errored record for the producer.
 */
import { type Job, type JobJson, Worker } from 'bullmq';

export class TolerantWorker extends Worker {
  /** Jobs whose data could not be read, with why; shared by a process's workers. */
  static readonly unreadable = new WeakMap<Job, string>();

  protected override createJob(data: JobJson, jobId: string): Job {
    try {
      return super.createJob(data, jobId);
    } catch (error) {
      const job = super.createJob({ ...data, data: 'null' }, jobId);
      TolerantWorker.unreadable.set(job, `job ${jobId}: its data is not JSON (${(error as Error).message})`);
      return job;
    }
  }
}
