import { describe, expect, it } from 'vitest';
import { DockerStreamDemultiplexer } from '../../../../src/sandbox/docker/stream-demultiplexer.js';

function frame(type: number, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header.writeUInt8(type, 0);
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

function collect() {
  // Keep bytes and decode at the end: single-byte chunks split multi-byte characters.
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  const corrupt: string[] = [];
  const demultiplexer = new DockerStreamDemultiplexer({
    stdout: (chunk) => chunks.stdout.push(Buffer.from(chunk)),
    stderr: (chunk) => chunks.stderr.push(Buffer.from(chunk)),
    corrupt: (reason) => corrupt.push(reason),
  });
  const seen = () => ({ stdout: Buffer.concat(chunks.stdout).toString(), stderr: Buffer.concat(chunks.stderr).toString(), corrupt });
  return { seen, demultiplexer };
}

describe('DockerStreamDemultiplexer', () => {
  it('routes frames to stdout and stderr', () => {
    const { seen, demultiplexer } = collect();
    demultiplexer.write(Buffer.concat([frame(1, 'out1\n'), frame(2, 'err\n'), frame(1, 'out2\n')]));
    expect(seen()).toEqual({ stdout: 'out1\nout2\n', stderr: 'err\n', corrupt: [] });
  });

  it('reassembles headers and payloads split at every byte', () => {
    const { seen, demultiplexer } = collect();
    const bytes = Buffer.concat([frame(1, '{"event":"ready"}\n'), frame(2, 'warning'), frame(1, 'é€\n')]);
    for (let index = 0; index < bytes.length; index += 1) demultiplexer.write(bytes.subarray(index, index + 1));
    expect(seen().stdout).toBe('{"event":"ready"}\né€\n');
    expect(seen().stderr).toBe('warning');
  });

  it('reports an unknown frame type once and ignores the rest', () => {
    const { seen, demultiplexer } = collect();
    demultiplexer.write(Buffer.concat([frame(1, 'ok'), frame(7, 'junk'), frame(1, 'late')]));
    expect(seen().stdout).toBe('ok');
    expect(seen().corrupt).toHaveLength(1);
  });
});
