/**
 * Child process for mcp.sessions.idle_bytes: serves corral (`corral`) or the SDK-example peer (`sdk`) and, on
 * request, collects garbage (it runs with --expose-gc) and reports process.memoryUsage() and the number of
 * sessions the server holds. A process of its own so nothing else's heap is counted.
 */
import { startCorralBenchServer } from '../mcp-bench-server.js';
import { SDK_EXAMPLE_PATH, startSdkExampleServer } from '../peers/sdk-example-server.js';
import { searchPagesTool } from '../../src/tools/wiki/search-pages-tool.js';
import { serveWorkerRequests } from './child-worker.js';
import { smallWikiIndex } from '../../src/testing/small-wiki-index.js';

const kind = process.argv[2] === 'sdk' ? 'sdk' : 'corral';

async function start(): Promise<{ origin: string; path: string; sessions: () => number }> {
  if (kind === 'sdk') {
    const server = await startSdkExampleServer(searchPagesTool(smallWikiIndex()));
    return { origin: server.origin, path: SDK_EXAMPLE_PATH, sessions: () => server.sessionCount() };
  }
  const server = await startCorralBenchServer({ backend: 'process' });
  return { origin: server.origin, path: '/mcp/wiki', sessions: () => server.app.corral.host.stats().legacySessions };
}

const served = await start();
const collectGarbage = (globalThis as { gc?: () => void }).gc;
if (!collectGarbage) throw new Error('session-memory-server needs --expose-gc');

serveWorkerRequests(async () => {
  // Several passes: weak references and finalizers freed by one pass can release more on the next.
  for (let pass = 0; pass < 4; pass++) {
    collectGarbage();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const usage = process.memoryUsage();
  return { heapUsed: usage.heapUsed, external: usage.external, rss: usage.rss, sessions: served.sessions() };
});
process.send?.({ ready: true, origin: served.origin, path: served.path });
