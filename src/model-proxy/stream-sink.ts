/**
 * Where a streamed answer goes: the CLI's response. The headers go out with upstream's first chunk (or earlier,
 * from the head start, when upstream is slow to begin), then each delta as the dialect's events the moment it
 * arrives. SSE everywhere, bar Gemini without ?alt=sse, which streams a JSON array written element by element.
 * A failure once the headers are out is written as the dialect's in-stream error; before, the caller answers it
 * with its real status.
 */
import type { ServerResponse } from 'node:http';
import type { Dialect, StreamDelta, StreamEvent, StreamStart, StreamWriter, TranslatedRequest, UpstreamAnswer } from './dialect.js';
import type { ProxyError } from './proxy-error.js';
import { StreamHeadStart } from './stream-head-start.js';
import type { StreamHandlers } from './upstream-client.js';

export class StreamSink implements StreamHandlers {
  private writer: StreamWriter | null = null;
  private readonly headStart: StreamHeadStart | null;
  private readonly sse: boolean;
  private elements = 0;
  private corked = false;

  constructor(
    private readonly response: ServerResponse,
    private readonly dialect: Dialect,
    private readonly request: TranslatedRequest,
    private readonly start: StreamStart,
    query: URLSearchParams,
    headStartMs: number,
  ) {
    this.sse = streamsAsSse(dialect, query);
    this.headStart = this.sse ? new StreamHeadStart(response, headStartMs, dialect.name !== 'gemini') : null;
  }

  /** The headers are out: the rest, failure included, must be written as stream events. */
  get committed(): boolean {
    return this.response.headersSent;
  }

  onStart(upstream: { upstreamId?: string; upstreamModel?: string }): void {
    this.stopHeadStart();
    this.writer = this.dialect.streamWriter(this.request, { ...this.start, ...upstream });
    if (!this.response.headersSent && !this.response.destroyed) {
      this.response.writeHead(200, { 'content-type': this.sse ? 'text/event-stream' : 'application/json', 'cache-control': 'no-cache' });
      if (!this.sse) this.response.write('[');
    }
    this.send(this.writer.start());
  }

  onDelta(delta: StreamDelta): void {
    this.send(this.writer!.write(delta));
  }

  finish(answer: UpstreamAnswer): void {
    if (!this.writer) this.onStart({});
    this.send(this.writer!.finish(answer));
    this.end();
  }

  /** The dialect's error event ends the stream: no terminator after it (a client would read a clean end). */
  fail(error: ProxyError): void {
    this.send(this.dialect.streamErrorEvents(error));
    this.end(false);
  }

  stopHeadStart(): void {
    this.headStart?.stop();
  }

  private send(events: StreamEvent[]): void {
    if (events.length === 0 || this.response.destroyed || this.response.writableEnded) return;
    // The deltas of one upstream read go out in one write: fewer segments, and fewer wake-ups for the CLI.
    if (!this.corked) {
      this.corked = true;
      this.response.cork();
      process.nextTick(() => {
        this.corked = false;
        this.response.uncork();
      });
    }
    if (this.sse) return void this.response.write(sseText(events));
    let text = '';
    for (const event of events) text += `${this.elements++ === 0 ? '' : ',\n'}${JSON.stringify(event.data)}`;
    this.response.write(text);
  }

  private end(clean = true): void {
    if (this.response.destroyed || this.response.writableEnded) return;
    if (!this.sse) return void this.response.end(']');
    this.response.end(clean && this.dialect.streamTerminator ? `data: ${this.dialect.streamTerminator}\n\n` : undefined);
  }
}

/** Gemini streams a JSON array unless asked for SSE (?alt=sse); every other dialect streams SSE. */
const streamsAsSse = (dialect: Dialect, query: URLSearchParams) => dialect.name !== 'gemini' || query.get('alt') === 'sse';

function sseText(events: StreamEvent[]): string {
  let text = '';
  for (const event of events) text += `${event.event ? `event: ${event.event}\n` : ''}data: ${JSON.stringify(event.data)}\n\n`;
  return text;
}
