/**
 * The MCP Transport over one WebSocket: each text frame carries one JSON-RPC message, in both directions.
 * The SDK v2 ships no WebSocket transport, so this implements its Transport interface over any socket with
 * the `ws` shape. Requests are dispatched as they arrive, so many calls can be in flight per connection.
 */
import { type JSONRPCMessage, type Transport, parseJSONRPCMessage } from '@modelcontextprotocol/server';
import { EDGE_ERROR_CODES, jsonRpcErrorBody } from './json-rpc-errors.js';
import { exceedsJsonNesting, jsonTooDeepError } from './json-nesting.js';

/** The subset of a `ws` WebSocket this transport uses. */
export interface MessageSocket {
  readonly readyState: number;
  send(data: string, callback?: (error?: Error) => void): void;
  close(code?: number, reason?: string): void;
  on(event: 'message', listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** Bytes queued but not yet sent. */
  readonly bufferedAmount: number;
  /** Stop and restart reading frames (ws pauses the socket under it). */
  pause(): void;
  resume(): void;
}

/** The byte stream under the WebSocket (ws's net.Socket); corking it lets one write carry many frames. */
export interface CorkableStream {
  cork(): void;
  uncork(): void;
  once(event: 'drain', listener: () => void): unknown;
}

export interface WebSocketTransportOptions {
  /** When given, batches the frames sent within one event-loop turn into one socket write, and resumes reading on drain. */
  stream?: CorkableStream;
  /** While more than this is queued unsent, no further frames are read: a client that does not read stops being served. */
  maxBufferedBytes?: number;
  /** Wraps the delivery of each received message (the endpoint charges the work to the connection's principal). */
  dispatch?: (deliver: () => void) => void;
}

const OPEN = 1;

export class WebSocketServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;
  private corked = false;
  private pausedForBackpressure = false;
  private readonly stream: CorkableStream | undefined;

  constructor(
    private readonly socket: MessageSocket,
    private readonly options: WebSocketTransportOptions = {},
  ) {
    this.stream = options.stream;
  }

  async start(): Promise<void> {
    this.socket.on('message', (data, isBinary) => this.receive(data, isBinary));
    this.socket.on('close', () => this.markClosed());
    this.socket.on('error', (error) => this.onerror?.(error));
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || this.socket.readyState !== OPEN) return Promise.reject(new Error('the WebSocket is closed'));
    this.corkUntilNextTurn();
    const sent = new Promise<void>((resolve, reject) => this.socket.send(JSON.stringify(message), (error) => (error ? reject(error) : resolve())));
    this.pauseIfOverBound();
    return sent;
  }

  async close(): Promise<void> {
    if (this.socket.readyState === OPEN) this.socket.close(1000, 'closing');
    this.markClosed();
  }

  private receive(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void {
    if (isBinary) return this.replyError(EDGE_ERROR_CODES.invalidRequest, 'binary frames are not accepted: send JSON-RPC as text');
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    if (exceedsJsonNesting(text)) {
      const refusal = jsonTooDeepError();
      return this.replyError(EDGE_ERROR_CODES.invalidRequest, refusal.message, null, { code: refusal.code, ...refusal.details });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return this.replyError(EDGE_ERROR_CODES.parseError, 'Parse error: the frame is not valid JSON');
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(parsed);
    } catch (error) {
      const id = (parsed as { id?: unknown } | null)?.id;
      return this.replyError(
        EDGE_ERROR_CODES.invalidRequest,
        `Invalid Request: ${(error as Error).message}`,
        typeof id === 'string' || typeof id === 'number' ? id : null,
      );
    }
    if (this.options.dispatch) this.options.dispatch(() => this.onmessage?.(message));
    else this.onmessage?.(message);
  }

  // Answers of requests already read may still overshoot the bound; the server closes a socket that stays above it.
  private pauseIfOverBound(): void {
    const bound = this.options.maxBufferedBytes;
    if (bound === undefined || this.pausedForBackpressure || !this.stream || this.socket.bufferedAmount <= bound) return;
    this.pausedForBackpressure = true;
    this.socket.pause();
    const resumeWhenDrained = () => {
      if (this.closed) return;
      if (this.socket.bufferedAmount > bound) return void this.stream?.once('drain', resumeWhenDrained);
      this.pausedForBackpressure = false;
      this.socket.resume();
    };
    this.stream.once('drain', resumeWhenDrained);
  }

  // With many calls in flight, one write per frame costs more than the frames: hold them until the loop turns.
  private corkUntilNextTurn(): void {
    if (!this.stream || this.corked) return;
    this.corked = true;
    this.stream.cork();
    setImmediate(() => {
      this.corked = false;
      this.stream?.uncork();
    });
  }

  private replyError(code: number, message: string, id: string | number | null = null, data?: unknown): void {
    if (this.socket.readyState === OPEN) this.socket.send(JSON.stringify(jsonRpcErrorBody(message, code, data, id)));
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
