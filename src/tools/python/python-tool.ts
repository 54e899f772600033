import { z } from 'zod';
import { MAX_OUTPUT_CHARS, timeoutMs, timeoutSecondsSchema } from '../call-timeout.js';
import { defineTool } from '../tool-definition.js';
import { renderPythonResult } from './render-python-result.js';

const pythonOutputSchema = z.object({
  stdout: z.string(),
  stderr: z.string(),
  /** repr() of the trailing expression, as Jupyter shows it. */
  value: z.string().nullable(),
  error: z.object({ name: z.string(), message: z.string(), traceback: z.string() }).nullable(),
  stdout_truncated: z.boolean(),
  stderr_truncated: z.boolean(),
  timed_out: z.boolean(),
  state_lost: z.boolean(),
  duration_ms: z.number(),
});

export type PythonToolOutput = z.output<typeof pythonOutputSchema>;

export const pythonTool = defineTool({
  name: 'python',
  title: 'Python REPL',
  description: [
    'Run Python 3 code in a persistent REPL inside your sandbox, like a Jupyter notebook cell.',
    'Variables, imports and definitions persist between calls. If the code ends with an expression, its repr() is returned as the value, so there is no need to print it.',
    `stdout and stderr are captured (each cut after ${MAX_OUTPUT_CHARS} characters). An exception returns its traceback and marks the result as an error.`,
    'The working directory is the workspace shared with the bash and file tools. There is no network access.',
    'Code that runs past the timeout is stopped and the REPL restarts, losing its variables; the result then says state_lost. Use python_reset to start over deliberately.',
  ].join(' '),
  inputSchema: z.object({
    code: z.string().describe('Python source to run; may span many lines.'),
    timeout_s: timeoutSecondsSchema,
  }),
  outputSchema: pythonOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  capability: 'python',
  async execute(input, context) {
    const result = await context.sandbox.python({
      code: input.code,
      timeoutMs: timeoutMs(input.timeout_s),
      maxOutputChars: MAX_OUTPUT_CHARS,
      abortSignal: context.abortSignal,
    });
    const output: PythonToolOutput = {
      stdout: result.stdout,
      stderr: result.stderr,
      value: result.value,
      error: result.error,
      stdout_truncated: result.stdoutTruncated,
      stderr_truncated: result.stderrTruncated,
      timed_out: result.timedOut,
      state_lost: result.stateLost,
      duration_ms: Math.round(result.durationMs),
    };
    return { structuredContent: output, text: renderPythonResult(output, timeoutMs(input.timeout_s)), isError: result.error !== null || result.timedOut };
  },
});
