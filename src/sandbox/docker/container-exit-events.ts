import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type Docker from 'dockerode';
import { CORRAL_CONTAINER_FILTER } from './docker-labels.js';

export interface ContainerExit {
  /** The container's exit status (137 = SIGKILL), or null when unknown. */
  statusCode: number | null;
  /** The kernel's OOM killer fired in this container before it died. */
  outOfMemory: boolean;
}

interface TrackedContainer {
  outOfMemory: boolean;
  exit: ContainerExit | undefined;
  waiters: Array<(exit: ContainerExit) => void>;
}

const RECONNECT_DELAY_MS = 500;
/** Replay slack on reconnect, in seconds: events are replayed from a little before the stream dropped. */
const REPLAY_SLACK_S = 2;

/**
 * Learns how each sandbox container ended from ONE daemon event stream (die and oom events of corral
 * containers), shared by all sandboxes of a provider. A per-container `wait` long-poll would also give
 * the exit code, but measured here it halved the creation rate (it contends with attach in the daemon).
 * AutoRemove leaves nothing to inspect afterwards, so this is the only place the exit status comes from.
 * The socket is unref'd: it never keeps a finished process alive.
 */
export class ContainerExitEvents {
  private readonly tracked = new Map<string, TrackedContainer>();
  private stream: IncomingMessage | undefined;
  private connecting: Promise<void> | undefined;
  private lostAtSeconds: number | undefined;
  private closed = false;

  constructor(private readonly docker: Docker) {}

  /** Starts following a container; resolves once the event stream is live, so call it before start. */
  track(containerId: string): Promise<void> {
    this.tracked.set(containerId, { outOfMemory: false, exit: undefined, waiters: [] });
    return this.connect();
  }

  untrack(containerId: string): void {
    this.tracked.delete(containerId);
  }

  /** The container's exit once its die event arrives, or a null status after graceMs. */
  exitOf(containerId: string, graceMs: number): Promise<ContainerExit> {
    const entry = this.tracked.get(containerId);
    const unknown: ContainerExit = { statusCode: null, outOfMemory: entry?.outOfMemory ?? false };
    if (!entry) return Promise.resolve(unknown);
    if (entry.exit) return Promise.resolve(entry.exit);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ ...unknown, outOfMemory: entry.outOfMemory }), graceMs).unref();
      entry.waiters.push((exit) => {
        clearTimeout(timer);
        resolve(exit);
      });
    });
  }

  close(): void {
    this.closed = true;
    this.stream?.destroy();
    this.stream = undefined;
  }

  private connect(): Promise<void> {
    if (this.closed || this.stream) return Promise.resolve();
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<void> {
    const options: Docker.GetEventsOptions = { filters: { type: ['container'], event: ['die', 'oom'], label: [CORRAL_CONTAINER_FILTER] } };
    if (this.lostAtSeconds !== undefined) options.since = this.lostAtSeconds - REPLAY_SLACK_S;
    let stream: IncomingMessage;
    try {
      stream = (await this.docker.getEvents(options)) as unknown as IncomingMessage;
    } catch {
      this.scheduleReconnect(); // exits stay unknown (SBX_ERR_CLOSED) until the stream is back
      return;
    }
    if (this.closed) return void stream.destroy();
    this.stream = stream;
    stream.socket?.unref();
    const decoder = new StringDecoder('utf8');
    let partial = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (partial + decoder.write(chunk)).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) this.handleEvent(line);
    });
    const lost = () => {
      if (this.stream !== stream) return;
      this.stream = undefined;
      this.lostAtSeconds = Math.floor(Date.now() / 1000);
      this.scheduleReconnect();
    };
    stream.on('error', lost);
    stream.on('close', lost);
    stream.on('end', lost);
  }

  private scheduleReconnect(): void {
    if (this.closed || this.tracked.size === 0) return;
    setTimeout(() => void this.connect(), RECONNECT_DELAY_MS).unref();
  }

  private handleEvent(line: string): void {
    let event: { Action?: string; Actor?: { ID?: string; Attributes?: Record<string, string> } };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      return;
    }
    const entry = event.Actor?.ID ? this.tracked.get(event.Actor.ID) : undefined;
    if (!entry) return;
    if (event.Action === 'oom') {
      entry.outOfMemory = true;
    } else if (event.Action === 'die' && !entry.exit) {
      const statusCode = Number(event.Actor?.Attributes?.exitCode);
      entry.exit = { statusCode: Number.isInteger(statusCode) ? statusCode : null, outOfMemory: entry.outOfMemory };
      for (const waiter of entry.waiters.splice(0)) waiter(entry.exit);
    }
  }
}
