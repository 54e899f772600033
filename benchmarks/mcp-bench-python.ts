/**
 * mcp.python.roundtrip.p50: `x = x + 1` through the python tool over Streamable HTTP on a warm sandbox, against
 * the same statement sent straight to a sandbox session from the same pool (no MCP, no HTTP), so the serving
 * overhead is the difference. Sequential calls; blocks of the two alternate so both see the same machine.
 */
import { Client } from 'undici';
import { type Figure, round } from './figure.js';
import type { CorralBenchServer } from './mcp-bench-server.js';
import { median, sampleMs } from './measure.js';
import {
  INITIALIZED_NOTIFICATION,
  MCP_POST_HEADERS,
  decodeReply,
  initializeMessage,
  isSuccessfulCall,
  sessionHeaders,
  toolCallMessage,
} from './load/mcp-wire.js';

const BLOCKS = 10;
const CALLS_PER_BLOCK = 20;

export async function pythonRoundTripFigures(corral: CorralBenchServer, log: (line: string) => void): Promise<Figure[]> {
  const client = new Client(corral.origin, { pipelining: 1 });
  const path = '/mcp/python';
  const lease = await corral.pool.acquire(corral.generalSpec);
  let sessionId: string | undefined;
  try {
    const initialized = await client.request({ method: 'POST', path, headers: MCP_POST_HEADERS, body: initializeMessage(0) });
    await initialized.body.dump();
    sessionId = String(initialized.headers['mcp-session-id']);
    const headers = sessionHeaders(sessionId);
    await (await client.request({ method: 'POST', path, headers, body: INITIALIZED_NOTIFICATION })).body.dump();
    let nextId = 1;
    const callPython = async (code: string) => {
      const response = await client.request({ method: 'POST', path, headers, body: toolCallMessage(nextId++, 'python', { code }) });
      const reply = decodeReply(await response.body.text());
      if (!isSuccessfulCall(reply)) throw new Error(`python over MCP failed: ${JSON.stringify(reply).slice(0, 300)}`);
    };
    log('python: first call leases the session sandbox');
    await callPython('x = 0');
    await lease.session.python({ code: 'x = 0' });
    const overMcp: number[] = [];
    const direct: number[] = [];
    for (let block = 0; block < BLOCKS; block++) {
      overMcp.push(...(await sampleMs(CALLS_PER_BLOCK, () => callPython('x = x + 1'))));
      direct.push(...(await sampleMs(CALLS_PER_BLOCK, () => lease.session.python({ code: 'x = x + 1' }))));
    }
    const ours = median(overMcp);
    const peer = median(direct);
    return [
      {
        name: 'mcp.python.roundtrip.p50',
        value: round(ours),
        unit: 'ms',
        peer: `session.python direct (${corral.generalSpec.backend})`,
        peerValue: round(peer),
        ratio: round(peer / ours, 2),
        target: '<= 5',
      },
    ];
  } finally {
    if (sessionId)
      await client.request({ method: 'DELETE', path, headers: sessionHeaders(sessionId) }).then(
        (response) => response.body.dump(),
        () => undefined,
      );
    await lease.release();
    await client.close();
  }
}
