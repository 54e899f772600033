import { z } from 'zod';
import { MAX_OUTPUT_CHARS, timeoutMs, timeoutSecondsSchema } from '../call-timeout.js';
import { defineTool } from '../tool-definition.js';
import { renderBashResult } from './render-bash-result.js';

const bashOutputSchema = z.object({
  stdout: z.string(),
  stderr: z.string(),
  /** null when the process was killed by a signal. */
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
  stdout_truncated: z.boolean(),
  stderr_truncated: z.boolean(),
  timed_out: z.boolean(),
  duration_ms: z.number(),
});

export type BashToolOutput = z.output<typeof bashOutputSchema>;

export const bashTool = defineTool({
  name: 'bash',
  title: 'Bash shell',
  description: [
    'Run a command with bash -c in your sandbox and return its stdout, stderr and exit code.',
    'Each call is a fresh shell: cd and exported variables do not carry over, but files do. The working directory is the workspace shared with the python and file tools.',
    `Each stream is cut after ${MAX_OUTPUT_CHARS} characters (the result says so). A non-zero exit code marks the result as an error.`,
    'There is no network access. A command still running at the timeout is killed with its whole process group and the result says timed_out; run long jobs in the background and poll if needed.',
  ].join(' '),
  inputSchema: z.object({
    command: z.string().min(1).describe('The bash command line, e.g. "ls -la && python3 main.py".'),
    timeout_s: timeoutSecondsSchema,
  }),
  outputSchema: bashOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  capability: 'exec',
  async execute(input, context) {
    const result = await context.sandbox.exec({
      command: input.command,
      timeoutMs: timeoutMs(input.timeout_s),
      maxOutputChars: MAX_OUTPUT_CHARS,
      abortSignal: context.abortSignal,
    });
    const output: BashToolOutput = {
      stdout: result.stdout,
      stderr: result.stderr,
      exit_code: result.exitCode,
      signal: result.signal,
      stdout_truncated: result.stdoutTruncated,
      stderr_truncated: result.stderrTruncated,
      timed_out: result.timedOut,
      duration_ms: Math.round(result.durationMs),
    };
    return { structuredContent: output, text: renderBashResult(output, timeoutMs(input.timeout_s)), isError: result.exitCode !== 0 || result.timedOut };
  },
});
