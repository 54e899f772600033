import { Client } from 'undici';
import { startCorralBenchServer } from '../src/bench/mcp-bench-server.js';
import { startSdkExampleServer, SDK_EXAMPLE_PATH } from '../src/bench/peers/sdk-example-server.js';
import { searchPagesTool } from '../src/tools/wiki-tools/search-pages-tool.js';
import { tinyWikiIndex } from '../src/bench/load/tiny-wiki-index.js';
import { MCP_POST_HEADERS, initializeMessage, sessionHeaders, INITIALIZED_NOTIFICATION, toolCallMessage } from '../src/bench/load/mcp-wire.js';

const corral = await startCorralBenchServer({ backend: 'process' });
const sdk = await startSdkExampleServer(searchPagesTool(tinyWikiIndex()));
for (const [origin, path] of [[corral.origin, '/mcp/wiki'], [sdk.origin, SDK_EXAMPLE_PATH]] as const) {
  const client = new Client(origin, { pipelining: 1 });
  const init = await client.request({ method: 'POST', path, headers: MCP_POST_HEADERS, body: initializeMessage(0) });
  console.log(init.statusCode, init.headers['content-type'], await init.body.text());
  const sid = String(init.headers['mcp-session-id']);
  await (await client.request({ method: 'POST', path, headers: sessionHeaders(sid), body: INITIALIZED_NOTIFICATION })).body.dump();
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    const r = await client.request({ method: 'POST', path, headers: sessionHeaders(sid), body: toolCallMessage(i + 1, 'search_pages', { query: 'river Cairo' }) });
    const text = await r.body.text();
    times.push(performance.now() - t);
    if (i === 0) console.log(r.statusCode, r.headers, text.slice(0, 200));
  }
  times.sort((a, b) => a - b);
  console.log(path, 'p50', times[25], 'min', times[0]);
  await client.close();
}
await corral.close(); await sdk.close();
