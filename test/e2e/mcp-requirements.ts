/**
 * The MCP behaviours corral promises, as plain data (STYLE principle 8). Test titles cite ids with
 * cites(...); test/unit/mcp-requirements-coverage.test.ts fails when an id is cited nowhere.
 */
export const MCP_REQUIREMENTS = {
  'TOOLS-LIST': 'tools/list gives every tool a description, an object input schema, an output schema and all four annotations',
  'TOOLS-STRUCTURED': 'tool results carry structuredContent matching the output schema, and the same facts as text',
  'PY-STATE': 'python keeps variables across calls and returns the trailing expression value; python_reset clears them',
  'SH-EXEC': 'bash returns stdout, stderr, exit code and truncation flags, and kills a command at its timeout',
  'FS-ROUNDTRIP': 'read_file, write_file, edit_file, list_dir, glob and grep work on one workspace shared with bash and python',
  'JS-STATE': 'javascript keeps globals across calls in an isolate leased next to the general sandbox',
  'WIKI-TOOLS': 'search_pages, view_sections and read_section answer in the WikiSearch shapes without leasing a sandbox',
  'ERR-TOOL': 'a failure inside a tool (exit code, traceback, missing file, workspace escape, timeout) is an isError result',
  'ERR-ARGS': 'schema-invalid arguments give an isError result the model can read (as the SDK and spec do)',
  'ERR-UNKNOWN-TOOL': 'an unknown tool is a JSON-RPC error -32602',
  'ERR-UNKNOWN-METHOD': 'an unknown method is a JSON-RPC error -32601',
  'ERR-PARSE': 'malformed JSON is a JSON-RPC parse error -32700',
  'ERR-INFRA': 'an infrastructure fault is a JSON-RPC error whose data carries the CorralError code',
  'SESSION-ISOLATION': 'two MCP sessions never share files or REPL state',
  'SESSION-END': 'ending a session (DELETE) releases its sandbox',
  'SESSION-IDLE': 'a session idle past the idle TTL releases its sandbox',
  'HANDLE-STATE': 'a /v1/sandboxes handle keeps one sandbox across sessionless 2026-era and 2025-era clients until DELETE',
  'HANDLE-OWNER': "another client's handle id answers 404 on MCP and on the handle API",
  'MODERN-ENV': 'a sessionless 2026-era client on /mcp/<env> gets a sandbox per request, released after it',
  'HTTP-413': 'a body over the limit is refused with 413 and a JSON-RPC error body',
  'HTTP-403': 'a foreign Host or Origin is refused with 403',
  'HTTP-401': 'a missing or wrong bearer token is refused with 401',
  'HTTP-ALIVE': 'the server keeps serving after every refusal',
  'HTTP-METRICS': '/metrics reports pool sizes, tool calls and latencies by tool, and errors by code',
  'HTTP-CLOSE': 'app.close() and SIGTERM release every sandbox lease',
  'HTTP-FAST-CALL': 'a plain tools/call on a 2025 session is answered as application/json with the same result, errors and session checks as the SSE path',
  'WS-SERVE': 'WebSocket serves either era with many calls in flight and the same guards as HTTP',
  'STDIO-SERVE': 'corral mcp <env> writes only JSON-RPC on stdout and exits when stdin closes',
  'MRTR-ROUNDS': 'a tool needing client input answers input_required (SEP-2322) to 2026-era clients, and reaches 2025-era sessions through a real request',
  'MRTR-STATE': 'a requestState altered by the client, or minted for another tool, is refused with -32602',
  'TASK-LIFECYCLE':
    'a client declaring io.modelcontextprotocol/tasks gets a task for a long bash call (working, then completed with the output); short calls and clients without the extension are answered directly',
  'TASK-CANCEL': 'tasks/cancel marks the task cancelled, kills its process in the sandbox, and leaves the sandbox usable',
  'TASK-NOTIFY':
    "subscriptions/listen with taskIds streams notifications/tasks for the caller's own tasks until they finish; without the extension it is -32021",
  'TASK-ISOLATION': "another principal's task id answers -32602 on tasks/get and tasks/cancel, as an unknown one does",
} as const;

export type RequirementId = keyof typeof MCP_REQUIREMENTS;

/** The title suffix citing requirement ids, e.g. "[PY-STATE]". Unknown ids fail at compile time. */
export function cites(...ids: RequirementId[]): string {
  return `[${ids.join(' ')}]`;
}
