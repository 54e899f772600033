import { z } from 'zod';
import { timeoutMs, timeoutSecondsSchema } from '../call-timeout.js';
import { defineTool } from '../tool-definition.js';

const javascriptOutputSchema = z.object({
  /** The completion value rendered as text, or null for undefined. */
  value: z.string().nullable(),
  logs: z.array(z.string()),
  error: z.object({ name: z.string(), message: z.string(), stack: z.string() }).nullable(),
  timed_out: z.boolean(),
  state_lost: z.boolean(),
  duration_ms: z.number(),
});

type JavascriptToolOutput = z.output<typeof javascriptOutputSchema>;

export const javascriptTool = defineTool({
  name: 'javascript',
  title: 'JavaScript REPL',
  description: [
    'Evaluate JavaScript in a persistent, isolated V8 context (like a browser console without a DOM).',
    'Globals defined with var, function or globalThis persist between calls. The value of the last expression is returned as text; console.log lines are returned as logs.',
    'There is no Node.js API: no require, no filesystem, no network, no timers that outlive the call. An exception returns its stack and marks the result as an error.',
    'Code that runs past the timeout or exhausts memory is stopped and the context is rebuilt, losing its globals (state_lost).',
  ].join(' '),
  inputSchema: z.object({
    code: z.string().describe('JavaScript source to evaluate as a script.'),
    timeout_s: timeoutSecondsSchema,
  }),
  outputSchema: javascriptOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  capability: 'javascript',
  async execute(input, context) {
    const session = await context.sandbox.session({ abortSignal: context.abortSignal });
    const result = await session.javascript({ code: input.code, timeoutMs: timeoutMs(input.timeout_s), abortSignal: context.abortSignal });
    const output: JavascriptToolOutput = {
      value: result.value,
      logs: result.logs,
      error: result.error,
      timed_out: result.timedOut,
      state_lost: result.stateLost,
      duration_ms: Math.round(result.durationMs),
    };
    return { structuredContent: output, text: renderJavascriptResult(output), isError: result.error !== null || result.timedOut };
  },
});

function renderJavascriptResult(output: JavascriptToolOutput): string {
  const parts = [...output.logs];
  if (output.error) parts.push(output.error.stack || `${output.error.name}: ${output.error.message}`);
  else if (output.value !== null) parts.push(output.value);
  if (output.timed_out) parts.push('[timed out; the context was rebuilt and earlier globals are gone]');
  else if (output.state_lost) parts.push('[the context was rebuilt before this call: earlier globals are gone]');
  return parts.length > 0 ? parts.join('\n') : 'undefined';
}
