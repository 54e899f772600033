/**
 * Runs a bench helper (a load generator, a server under measurement, a scripted model) in its own Node process,
 * so it gets its own event loop and heap: on a 2-core machine a load generator sharing the server's loop would
 * measure itself. Parent and child talk over the IPC channel with numbered requests.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface WorkerReply {
  id?: number;
  error?: string;
  [field: string]: unknown;
}

export class ChildWorker {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (reply: WorkerReply) => void; reject: (error: Error) => void }>();
  private exited = false;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: WorkerReply) => {
      const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id!);
      if (message.error) waiter.reject(new Error(message.error));
      else waiter.resolve(message);
    });
    child.once('exit', (code, signal) => {
      this.exited = true;
      for (const waiter of this.pending.values()) waiter.reject(new Error(`bench worker exited (${code ?? signal})`));
      this.pending.clear();
    });
  }

  /**
   * Starts `script` (a path relative to benchmarks/load, run through tsx) and waits for its first message, which
   * must be `{ready: true, ...}`; that message is returned alongside the worker.
   */
  static async start(script: string, options: { args?: string[]; nodeOptions?: string[] } = {}): Promise<{ worker: ChildWorker; ready: WorkerReply }> {
    const path = fileURLToPath(new URL(script, import.meta.url));
    // Node itself with tsx's loader (not the tsx wrapper), so kill() and memory figures hit the process that does the work.
    const child = fork(path, options.args ?? [], {
      cwd: PROJECT_ROOT,
      execArgv: [...(options.nodeOptions ?? []), '--import', 'tsx/esm'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const worker = new ChildWorker(child);
    const ready = await new Promise<WorkerReply>((resolve, reject) => {
      child.once('message', (message: WorkerReply) =>
        message.ready ? resolve(message) : reject(new Error(`bench worker ${script} said ${JSON.stringify(message)} before ready`)),
      );
      child.once('exit', (code) => reject(new Error(`bench worker ${script} exited before it was ready (${code})`)));
    });
    return { worker, ready };
  }

  /** Sends `message` and resolves with the child's reply to it (typed by the caller), or rejects with its error. */
  request<Reply = WorkerReply>(message: object): Promise<Reply> {
    if (this.exited) return Promise.reject(new Error('bench worker has exited'));
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (reply: WorkerReply) => void, reject });
      this.child.send({ ...message, id });
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}

/** The child side: answers each numbered request with `handle`'s result (or its error), keeping the id. */
export function serveWorkerRequests(handle: (message: Record<string, unknown>) => Promise<Record<string, unknown>>): void {
  process.on('message', (message: Record<string, unknown>) => {
    const id = message.id as number;
    handle(message).then(
      (reply) => process.send?.({ ...reply, id }),
      (error: unknown) => process.send?.({ id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  });
  // The parent going away (even by SIGKILL) closes the channel: leave with it rather than linger.
  process.on('disconnect', () => process.exit(0));
}
