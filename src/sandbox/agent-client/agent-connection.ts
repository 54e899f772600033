/**
 * One JSON-lines conversation with an in-sandbox agent over any pair of Node streams (a child's stdio, a
 * demultiplexed Docker attach stream, a WebSocket adapter). Calls are multiplexed by id; each has a host-side
 * deadline so a wedged sandbox can never hang a caller. See sandboxes/agent/PROTOCOL.md.
 */
import type { Readable, Writable } from 'node:stream';
import { raceAbort } from '../../core/abort.js';
import { CorralError } from '../../core/errors.js';
import type { ResetReport } from '../provider.js';
import type { Capability, SandboxSession } from '../session.js';
import type { BackendName } from '../spec.js';
import { AgentSession } from './agent-session.js';
import { JsonLineSplitter } from './json-line-splitter.js';
import { corralErrorFromWire } from './wire-errors.js';
import { parseAgentLine } from './wire-message.js';
import { withTimeout } from './with-timeout.js';
import { AGENT_MAX_LINE_BYTES, AGENT_PROTOCOL_VERSION, type AgentOp, type ReadyEvent, type WireResetResult } from './wire-protocol.js';

export interface AgentConnectionOptions {
  writable: Writable;
  readable: Readable;
  sandboxId: string;
  backend: BackendName;
  /** Workspace path as seen inside the sandbox. */
  workspace: string;
  /** Timeout for calls that pass none, in ms (default 60,000). */
  defaultTimeoutMs?: number;
  /** What the session offers (default exec, python, files); a backend that can fork this sandbox adds 'fork'. */
  capabilities?: ReadonlySet<Capability>;
}

export interface AgentCallOptions {
  abortSignal?: AbortSignal;
  /** The op's own timeout, sent to the agent as timeoutMs; the host waits this plus HOST_MARGIN_MS. */
  timeoutMs?: number;
}

/** Slack on top of a call's own timeout: the agent needs time to kill a process tree and report. */
export const HOST_MARGIN_MS = 10_000;
/**
 * The most the host buffers unparsed per sandbox (the splitter's unterminated line is the only such buffer): the
 * agent's own line limit plus slack for the envelope. Past it the connection closes with SBX_ERR_PROTOCOL, so a
 * hostile or broken stream costs the host at most this, not whatever it chooses to send.
 */
export const MAX_BUFFERED_LINE_BYTES = AGENT_MAX_LINE_BYTES + 1024 * 1024;

interface PendingCall {
  op: string;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: unknown) => void;
  settle: () => void;
}

export class AgentConnection {
  readonly session: SandboxSession;
  readonly sandboxId: string;
  readonly defaultTimeoutMs: number;
  private readonly writable: Writable;
  private readonly readable: Readable;
  private readonly pending = new Map<number, PendingCall>();
  private readonly closeListeners: Array<(reason: Error) => void> = [];
  private readonly splitter: JsonLineSplitter;
  private readonly readyPromise: Promise<ReadyEvent>;
  private settleReady: { resolve: (event: ReadyEvent) => void; reject: (error: Error) => void } | undefined;
  private readyEvent: ReadyEvent | undefined;
  private closeReason: Error | undefined;
  private nextId = 1;

  constructor(options: AgentConnectionOptions) {
    this.writable = options.writable;
    this.readable = options.readable;
    this.sandboxId = options.sandboxId;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? 60_000;
    this.readyPromise = new Promise<ReadyEvent>((resolve, reject) => (this.settleReady = { resolve, reject }));
    this.readyPromise.catch(() => undefined); // nobody may be waiting when the stream closes
    this.session = new AgentSession(
      {
        id: options.sandboxId,
        backend: options.backend,
        workspace: options.workspace,
        defaultTimeoutMs: this.defaultTimeoutMs,
        ...(options.capabilities ? { capabilities: options.capabilities } : {}),
      },
      (op, args, callOptions) => this.call(op, args, callOptions),
    );
    this.splitter = new JsonLineSplitter(
      (line) => this.handleLine(line),
      (bytes) => {
        const message = `agent in ${this.sandboxId} sent ${bytes} bytes without a newline, over the ${MAX_BUFFERED_LINE_BYTES}-byte line limit`;
        this.close(new CorralError('SBX_ERR_PROTOCOL', message, { details: { sandboxId: this.sandboxId, limitBytes: MAX_BUFFERED_LINE_BYTES } }));
      },
      MAX_BUFFERED_LINE_BYTES,
    );
    const splitter = this.splitter;
    // Keeps flowing after close (the splitter discards): a paused stream would buffer a flood instead.
    this.readable.on('data', (chunk: Buffer | string) => splitter.push(chunk));
    this.readable.on('end', () => this.close(this.streamClosed('the agent stream ended')));
    this.readable.on('close', () => this.close(this.streamClosed('the agent stream closed')));
    this.readable.on('error', (error) => this.close(this.streamClosed(`the agent stream failed: ${error.message}`, error)));
    this.writable.on('error', (error) => this.close(this.streamClosed(`writing to the agent failed: ${error.message}`, error)));
  }

  get closed(): boolean {
    return this.closeReason !== undefined;
  }

  /** Bytes received from the agent and not yet parsed (an unterminated line); bounded by MAX_BUFFERED_LINE_BYTES. */
  get bufferedBytes(): number {
    return this.splitter.bufferedBytes;
  }

  /** The agent's pid inside the sandbox, once ready. */
  get agentPid(): number | undefined {
    return this.readyEvent?.pid;
  }

  /** Waits for the agent's ready line. Rejects SBX_ERR_TIMEOUT, ERR_ABORTED, or the close reason if the stream ends first. */
  ready(options: { timeoutMs: number; abortSignal?: AbortSignal }): Promise<ReadyEvent> {
    const timeoutError = () => new CorralError('SBX_ERR_TIMEOUT', `agent in ${this.sandboxId} was not ready within ${options.timeoutMs} ms`);
    return withTimeout(raceAbort(this.readyPromise, options.abortSignal), options.timeoutMs, timeoutError);
  }

  async ping(options: AgentCallOptions = {}): Promise<{ pid: number; uptimeMs: number }> {
    const result = await this.call('ping', {}, { timeoutMs: 5_000, ...options });
    return { pid: Number(result.pid), uptimeMs: Number(result.uptimeMs) };
  }

  /** Kills every process, wipes the workspace and /tmp, restarts the REPL, and reports what the check found. */
  async reset(options: AgentCallOptions = {}): Promise<ResetReport> {
    const result = (await this.call('reset', {}, { timeoutMs: 30_000, ...options })) as unknown as WireResetResult;
    return result.ok ? { ok: true, durationMs: result.durationMs } : { ok: false, durationMs: result.durationMs, leftovers: result.leftovers };
  }

  /** Moves the agent's dead-man deadline (epoch ms). */
  async extend(deadlineMs: number, options: AgentCallOptions = {}): Promise<void> {
    await this.call('extend', { deadlineMs }, { timeoutMs: 5_000, ...options });
  }

  /**
   * Sends one request and resolves with its result. Rejects with the mapped CorralError, SBX_ERR_TIMEOUT when
   * the host-side deadline passes, ERR_ABORTED on abort (the agent is asked to cancel), SBX_ERR_CLOSED when closed.
   */
  call(op: AgentOp, args: Record<string, unknown>, options: AgentCallOptions = {}): Promise<Record<string, unknown>> {
    if (this.closeReason) return Promise.reject(this.closedError());
    if (options.abortSignal?.aborted) return Promise.reject(new CorralError('ERR_ABORTED', `${op} was cancelled`));
    const id = this.nextId++;
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const abortSignal = options.abortSignal;
      const onAbort = () => {
        entry.settle();
        this.sendCancel(id);
        reject(new CorralError('ERR_ABORTED', `${op} was cancelled`, { cause: abortSignal?.reason }));
      };
      const timer = setTimeout(() => {
        entry.settle();
        this.sendCancel(id);
        const message = `${op}: the agent in ${this.sandboxId} did not answer within ${timeoutMs + HOST_MARGIN_MS} ms`;
        reject(new CorralError('SBX_ERR_TIMEOUT', message, { details: { op, sandboxId: this.sandboxId } }));
      }, timeoutMs + HOST_MARGIN_MS);
      const entry: PendingCall = {
        op,
        resolve,
        reject,
        settle: () => {
          clearTimeout(timer);
          abortSignal?.removeEventListener('abort', onAbort);
          this.pending.delete(id);
        },
      };
      abortSignal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, entry);
      this.send({ id, op, timeoutMs, ...args });
    });
  }

  /** Stops the conversation: pending calls reject (SBX_ERR_CLOSED unless the reason is a CorralError), stdin ends. */
  close(reason?: Error): void {
    if (this.closeReason) return;
    const closeReason = reason ?? new CorralError('SBX_ERR_CLOSED', `connection to ${this.sandboxId} was closed`);
    this.closeReason = closeReason;
    this.splitter.stop();
    const callError = CorralError.isInstance(closeReason) ? closeReason : this.closedError();
    for (const entry of [...this.pending.values()]) {
      entry.settle();
      entry.reject(callError);
    }
    this.settleReady?.reject(callError);
    if (!this.writable.destroyed && !this.writable.writableEnded) this.writable.end(); // stdin EOF: the agent exits
    for (const listener of this.closeListeners.splice(0)) listener(closeReason);
  }

  /** Called once when the connection closes for any reason (right away if it already has). */
  onClose(listener: (reason: Error) => void): void {
    if (this.closeReason) {
      const reason = this.closeReason;
      queueMicrotask(() => listener(reason));
      return;
    }
    this.closeListeners.push(listener);
  }

  private send(message: Record<string, unknown>): void {
    if (this.writable.destroyed || this.writable.writableEnded) {
      this.close(this.streamClosed('the agent stream is not writable'));
      return;
    }
    this.writable.write(`${JSON.stringify(message)}\n`);
  }

  private sendCancel(targetId: number): void {
    if (this.closeReason) return;
    // Fire and forget: the response (or its absence) changes nothing for the caller that gave up.
    this.call('cancel', { targetId }, { timeoutMs: 5_000 }).catch(() => undefined);
  }

  private handleLine(line: string): void {
    if (this.closeReason || line.trim() === '') return;
    const message = parseAgentLine(line);
    switch (message.kind) {
      case 'invalid':
        this.close(new CorralError('SBX_ERR_PROTOCOL', `agent in ${this.sandboxId} sent ${message.reason}`, { details: { sandboxId: this.sandboxId } }));
        return;
      case 'ready':
        this.handleReady(message.version, message.pid);
        return;
      default: {
        if (!Number.isInteger(message.id) || message.id < 1 || message.id >= this.nextId) {
          // Only answers to requests we sent are legitimate; anything else is a forged or broken stream.
          this.close(
            new CorralError('SBX_ERR_PROTOCOL', `agent in ${this.sandboxId} answered request ${message.id}, which was never sent`, {
              details: { sandboxId: this.sandboxId },
            }),
          );
          return;
        }
        const entry = this.pending.get(message.id);
        if (!entry) return; // a late answer to a call that already timed out or was cancelled
        entry.settle();
        if (message.kind === 'result') entry.resolve(message.result);
        else entry.reject(corralErrorFromWire(message.error, { op: entry.op, sandboxId: this.sandboxId }));
      }
    }
  }

  private handleReady(version: unknown, pid: number): void {
    if (version !== AGENT_PROTOCOL_VERSION) {
      this.close(new CorralError('SBX_ERR_PROTOCOL', `agent speaks protocol version ${String(version)}, expected ${AGENT_PROTOCOL_VERSION}`));
      return;
    }
    this.readyEvent = { event: 'ready', version: AGENT_PROTOCOL_VERSION, pid };
    this.settleReady?.resolve(this.readyEvent);
  }

  private streamClosed(message: string, cause?: unknown): CorralError {
    return new CorralError('SBX_ERR_CLOSED', `${this.sandboxId}: ${message}`, { cause, details: { sandboxId: this.sandboxId } });
  }

  private closedError(): CorralError {
    const reason = this.closeReason;
    if (CorralError.hasCode(reason, 'SBX_ERR_CLOSED')) return reason;
    return new CorralError('SBX_ERR_CLOSED', `${this.sandboxId} is closed${reason ? `: ${reason.message}` : ''}`, { cause: reason });
  }
}
