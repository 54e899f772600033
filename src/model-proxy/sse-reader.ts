import { createParser, type EventSourceParser, type ParseError } from 'eventsource-parser';

/**
 * Reads a server-sent event stream as it arrives: bytes in, each event's data out (its `data:` lines joined).
 * eventsource-parser does the line grammar (CR, LF or CRLF ends a line, a leading BOM, fields without a colon);
 * this adds the byte decoding, a cap on what may be buffered, and the last event of a stream cut short.
 */
const MAX_BUFFERED_CHARS = 16 * 1024 * 1024;

export class SseReader {
  private readonly decoder = new TextDecoder();
  private readonly parser: EventSourceParser;
  private events: string[] = [];
  private failure: Error | null = null;

  constructor() {
    this.parser = createParser({
      maxBufferSize: MAX_BUFFERED_CHARS,
      onEvent: (event) => this.events.push(event.data),
      // Unknown fields and a bad `retry` are the upstream's business; only an over-long line stops the read.
      onError: (error: ParseError) => {
        if (error.type === 'max-buffer-size-exceeded') this.failure = new Error(`the event stream has a line longer than ${MAX_BUFFERED_CHARS} characters`);
      },
    });
  }

  /** The data of every event this chunk completed. Throws once an unfinished line passes the cap. */
  push(chunk: Uint8Array): string[] {
    return this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  /** What a stream that ended without a last blank line still held: the spec drops it, an upstream meant it. */
  end(): string[] {
    return this.feed(`${this.decoder.decode()}\n\n`);
  }

  private feed(text: string): string[] {
    if (this.failure) throw this.failure;
    this.parser.feed(text);
    if (this.failure) throw this.failure;
    const events = this.events;
    this.events = [];
    return events;
  }
}
