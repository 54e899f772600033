/**
 * What a hostile or broken agent stream can make the host buffer: an unterminated line, oversized lines and a
 * flood of forged replies close the sandbox with SBX_ERR_PROTOCOL and never grow the buffer past its bound.
 * The real agent, for its part, never writes a line past the protocol limit.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { CorralError } from '../../../../src/core/errors.js';
import { AgentConnection, MAX_BUFFERED_LINE_BYTES } from '../../../../src/sandbox/agent-client/agent-connection.js';
import { codeOf } from './error-code-of.js';
import { JsonLineSplitter } from '../../../../src/sandbox/agent-client/json-line-splitter.js';
import { type RealAgent, startRealAgent } from './agent-real-child.js';

const MiB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a'); // one buffer reused, so the test itself holds no 250 MiB
const tick = () => new Promise((resolve) => setImmediate(resolve));

async function readyFakeAgent() {
  const toAgent = new PassThrough();
  const fromAgent = new PassThrough();
  toAgent.resume();
  const connection = new AgentConnection({ writable: toAgent, readable: fromAgent, sandboxId: 'sbx_limits', backend: 'process', workspace: '/workspace' });
  fromAgent.write('{"event":"ready","version":1,"pid":7}\n');
  await connection.ready({ timeoutMs: 1_000 });
  return { connection, fromAgent };
}

describe('JsonLineSplitter bounds', () => {
  it('a 250 MiB unterminated line never buffers past the bound, overflows once, then ignores the stream', () => {
    const overflows: number[] = [];
    const splitter = new JsonLineSplitter(
      () => undefined,
      (bytes) => overflows.push(bytes),
      8 * MiB,
    );
    let largest = 0;
    for (let sent = 0; sent < 250 * MiB; sent += CHUNK.length) {
      splitter.push(CHUNK);
      largest = Math.max(largest, splitter.bufferedBytes);
    }
    expect(largest).toBeLessThanOrEqual(8 * MiB);
    expect(overflows).toHaveLength(1);
    expect(splitter.isStopped).toBe(true);
    expect(splitter.bufferedBytes).toBe(0);
  });

  it('refuses a terminated line over the bound without handing it out', () => {
    const lines: string[] = [];
    const overflows: number[] = [];
    const splitter = new JsonLineSplitter(
      (line) => lines.push(line),
      (bytes) => overflows.push(bytes),
      1024,
    );
    splitter.push('{"ok":1}\n');
    splitter.push(`${'x'.repeat(2000)}\n{"after":1}\n`);
    expect(lines).toEqual(['{"ok":1}']);
    expect(overflows).toEqual([2000]);
  });
});

describe('AgentConnection bounds', () => {
  it('closes the sandbox with SBX_ERR_PROTOCOL on a 250 MiB unterminated line; pending calls fail with it', async () => {
    const { connection, fromAgent } = await readyFakeAgent();
    const pending = codeOf(connection.session.exec({ command: 'true', timeoutMs: 60_000 }));
    const closeReasons: Error[] = [];
    connection.onClose((reason) => closeReasons.push(reason));
    let largest = 0;
    for (let sent = 0; sent < 250 * MiB; sent += CHUNK.length) {
      fromAgent.write(CHUNK);
      if (sent % (4 * MiB) === 0) await tick(); // let the stream deliver, as a socket would
      largest = Math.max(largest, connection.bufferedBytes);
    }
    await tick();
    expect(largest).toBeLessThanOrEqual(MAX_BUFFERED_LINE_BYTES);
    expect(connection.bufferedBytes).toBe(0);
    expect(connection.closed).toBe(true);
    expect(await pending).toBe('SBX_ERR_PROTOCOL');
    expect(closeReasons.map((reason) => CorralError.isInstance(reason) && reason.code)).toEqual(['SBX_ERR_PROTOCOL']);
  });

  it('closes on a flood of forged replies to requests never sent, at the first one', async () => {
    const { connection, fromAgent } = await readyFakeAgent();
    const pending = codeOf(connection.session.exec({ command: 'true', timeoutMs: 60_000 }));
    const forged = `{"id":424242,"ok":true,"result":{"ok":true,"leftovers":[],"durationMs":1}}\n`.repeat(1000);
    for (let round = 0; round < 100; round += 1) fromAgent.write(forged);
    await tick();
    expect(connection.closed).toBe(true);
    expect(await pending).toBe('SBX_ERR_PROTOCOL');
    expect(connection.bufferedBytes).toBe(0);
  });

  it('still accepts the largest legitimate reply: a whole 32 MiB file as base64', async () => {
    const { connection, fromAgent } = await readyFakeAgent();
    const read = connection.session.files.read({ path: 'big.bin', encoding: 'base64' });
    await tick();
    const content = Buffer.alloc(32 * MiB, 0xff).toString('base64');
    const line = `{"id":1,"ok":true,"result":{"content":"${content}","encoding":"base64","sizeBytes":${32 * MiB},"truncated":false}}\n`;
    for (let offset = 0; offset < line.length; offset += CHUNK.length) fromAgent.write(line.slice(offset, offset + CHUNK.length));
    const file = await read;
    expect(file?.content.length).toBe(content.length);
    expect(connection.closed).toBe(false);
  });
});

describe('the real agent never writes a line past the protocol limit', () => {
  const agents: RealAgent[] = [];
  afterEach(() => {
    for (const agent of agents.splice(0)) agent.stop();
  });

  it('answers TOO_LARGE (SBX_ERR_OUTPUT_LIMIT) for a reply that would be too long, and keeps serving', async () => {
    // 9 MiB of control characters: JSON escapes each as \u0001, so the utf8 reply would be 54 MiB.
    const agent = await startRealAgent({ prepare: (workspace) => writeFileSync(join(workspace, 'controls.txt'), Buffer.alloc(9 * MiB, 1)) });
    agents.push(agent);
    const { connection } = agent;
    expect(await codeOf(connection.session.files.read({ path: 'controls.txt' }))).toBe('SBX_ERR_OUTPUT_LIMIT');
    expect(connection.closed).toBe(false);
    expect((await connection.session.exec({ command: 'echo still here' })).stdout).toBe('still here\n');
  });
});
