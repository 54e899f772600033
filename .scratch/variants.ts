import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { startCorralBenchServer } from '../src/bench/mcp-bench-server.js';
import { startSdkExampleServer, SDK_EXAMPLE_PATH } from '../src/bench/peers/sdk-example-server.js';
import { searchPagesTool } from '../src/tools/wiki-tools/search-pages-tool.js';
import { tinyWikiIndex } from '../src/bench/load/tiny-wiki-index.js';
import { ChildWorker } from '../src/bench/load/child-worker.js';
const json = process.argv[2] === 'json';
if (json) {
  const original = WebStandardStreamableHTTPServerTransport.prototype.handleRequest;
  WebStandardStreamableHTTPServerTransport.prototype.handleRequest = function (this: { _enableJsonResponse: boolean }, ...args: unknown[]) { this._enableJsonResponse = true; return (original as Function).apply(this, args); } as never;
}
const corral = await startCorralBenchServer({ backend: 'process' });
const sdk = await startSdkExampleServer(searchPagesTool(tinyWikiIndex()));
const { worker } = await ChildWorker.start('./http-load-worker.ts');
for (let round = 0; round < 2; round++)
for (const [name, origin, path] of [['corral', corral.origin, '/mcp/wiki'], ['sdk', sdk.origin, SDK_EXAMPLE_PATH]] as const) {
  const r = await worker.request<{ calls: number }>({ target: { origin, path, kind: 'mcp-session', toolName: 'search_pages', toolArguments: { query: 'river Cairo' } }, clients: 32, warmupMs: 500, durationMs: 2000 });
  console.log(json ? 'json' : 'sse', name, r.calls / 2);
}
await worker.stop(); await corral.close(); await sdk.close(); process.exit(0);
