/**
 * Connects an MCP client to a running `corral serve`, the way an agent harness would: create a sandbox handle,
 * call the python and bash tools on it (they share one workspace, and the REPL keeps its variables), then delete
 * the handle, which releases the sandbox.
 *
 *   corral serve --backend process --token secret &
 *   CORRAL_URL=http://127.0.0.1:7777 CORRAL_TOKEN=secret npx tsx examples/mcp-client/client.ts
 *
 * Exits non-zero when anything is not as documented, so CI (npm run examples) catches a regression.
 */
import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const baseUrl = process.env.CORRAL_URL ?? 'http://127.0.0.1:7777';
const token = process.env.CORRAL_TOKEN;
const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};

interface SandboxHandle {
  id: string;
  env: string;
  mcpUrl: string;
  expiresAt: string;
}

async function main(): Promise<void> {
  // 1. A handle pins one sandbox; its MCP URL works for any client, with or without MCP sessions.
  const created = await fetch(`${baseUrl}/v1/sandboxes`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ env: 'python' }),
  });
  if (created.status !== 201) throw new Error(`POST /v1/sandboxes answered ${created.status}: ${await created.text()}`);
  const sandbox = (await created.json()) as SandboxHandle;
  console.log(`sandbox ${sandbox.id} (expires ${sandbox.expiresAt}) at ${sandbox.mcpUrl}`);

  const client = new Client({ name: 'corral-example-client', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(sandbox.mcpUrl), { requestInit: { headers } }));
    const { tools } = await client.listTools();
    console.log(`tools: ${tools.map((tool) => tool.name).join(', ')}`);

    // 2. The REPL is persistent: a variable defined in one call is there in the next.
    expectText(await call(client, 'python', { code: 'answer = 6 * 7\nanswer' }), '42');
    expectText(await call(client, 'python', { code: "open('answer.txt', 'w').write(str(answer + 1))" }), '2');

    // 3. bash runs in the same workspace, so it sees the file the REPL wrote.
    const shell = await call(client, 'bash', { command: 'cat answer.txt && echo && uname -s' });
    expectText(shell, '43\nLinux');
    console.log(`bash exit code: ${String((shell.structuredContent as { exit_code?: number } | undefined)?.exit_code)}`);

    // 4. A failure inside a tool is a result the model can read (isError), not a protocol error.
    const failed = await call(client, 'python', { code: '1 / 0' });
    if (!failed.isError || !textOf(failed).includes('ZeroDivisionError')) throw new Error(`expected a ZeroDivisionError result, got ${textOf(failed)}`);
    console.log('1 / 0 -> isError result with a ZeroDivisionError traceback');
  } finally {
    await client.close().catch(() => undefined);
    // 5. Deleting the handle releases the sandbox now instead of at the idle timeout.
    const deleted = await fetch(`${baseUrl}/v1/sandboxes/${sandbox.id}`, { method: 'DELETE', headers });
    console.log(`DELETE /v1/sandboxes/${sandbox.id} -> ${deleted.status}`);
    if (deleted.status !== 204) process.exitCode = 1;
  }
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  console.log(`${name} ${JSON.stringify(args)} -> ${JSON.stringify(textOf(result))}`);
  return result;
}

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
}

function expectText(result: CallToolResult, expected: string): void {
  if (result.isError || textOf(result).trim() !== expected)
    throw new Error(`expected ${JSON.stringify(expected)}, got ${JSON.stringify(textOf(result))} (isError ${String(result.isError)})`);
}

await main();
