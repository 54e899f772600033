import { Writable } from 'node:stream';

const HEADER_BYTES = 8;
const STREAM_STDOUT = 1;
const STREAM_STDERR = 2;

export interface DemultiplexerTargets {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** A frame with an unknown stream type: the stream is not multiplexed or lost sync; nothing after it is trusted. */
  corrupt(reason: string): void;
}

/**
 * Splits Docker's attach stream (non-TTY) into stdout and stderr. Each frame is an 8-byte header
 * [type, 0, 0, 0, size uint32 BE] followed by `size` bytes. Written here rather than docker-modem's
 * demuxStream because that one re-concatenates its whole buffer on every chunk (quadratic on large file
 * reads) and silently switches to raw passthrough on a bad header, which would feed garbage to the protocol.
 */
export class DockerStreamDemultiplexer extends Writable {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private frameType = -1;
  private frameRemaining = 0;
  private failed = false;

  constructor(private readonly targets: DemultiplexerTargets) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (!this.failed) this.consume(chunk);
    callback();
  }

  private consume(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.frameRemaining > 0) {
        const take = Math.min(this.frameRemaining, chunk.length - offset);
        this.emitPayload(chunk.subarray(offset, offset + take));
        this.frameRemaining -= take;
        offset += take;
        continue;
      }
      // Collect a complete header, which may straddle chunks.
      const need = HEADER_BYTES - this.pendingBytes;
      const take = Math.min(need, chunk.length - offset);
      this.pending.push(chunk.subarray(offset, offset + take));
      this.pendingBytes += take;
      offset += take;
      if (this.pendingBytes < HEADER_BYTES) return;
      const header = Buffer.concat(this.pending, HEADER_BYTES);
      this.pending = [];
      this.pendingBytes = 0;
      this.frameType = header.readUInt8(0);
      this.frameRemaining = header.readUInt32BE(4);
      if (this.frameType !== STREAM_STDOUT && this.frameType !== STREAM_STDERR && this.frameType !== 0) {
        this.failed = true;
        this.targets.corrupt(`unexpected attach frame type ${this.frameType}`);
        return;
      }
    }
  }

  private emitPayload(payload: Buffer): void {
    if (this.frameType === STREAM_STDERR) this.targets.stderr(payload);
    else if (this.frameType === STREAM_STDOUT) this.targets.stdout(payload);
  }
}
