/** SDK clients for the e2e tests: 2025-era (initialize handshake, sessions) or 2026-era (sessionless, pinned). */
import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export type Era = 'legacy' | 'modern';

export const MODERN_PROTOCOL_VERSION = '2026-07-28';

export function newClient(era: Era = 'legacy'): Client {
  return new Client({ name: 'corral-e2e', version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {});
}

export async function connectHttp(
  url: string,
  options: { era?: Era; headers?: Record<string, string> } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = newClient(options.era);
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: options.headers ?? {} } });
  await client.connect(transport);
  return { client, transport };
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult & { structuredContent: Record<string, unknown> }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return result as CallToolResult & { structuredContent: Record<string, unknown> };
}

export function textOf(result: CallToolResult): string {
  return result.content
    .filter((block) => block.type === 'text')
    .map((block) => (block as { text: string }).text)
    .join('\n');
}
