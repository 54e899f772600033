import { withTruncationNote } from '../tool-result.js';
import type { BashToolOutput } from './bash-tool.js';

/** Plain stdout for a clean success; labelled sections when there is stderr, a failure or a timeout. */
export function renderBashResult(output: BashToolOutput, timeoutMs: number): string {
  const clean = output.exit_code === 0 && !output.timed_out && output.stderr === '';
  if (clean) return withTruncationNote(output.stdout.replace(/\n$/, ''), output.stdout_truncated, 'stdout') || '(no output)';
  const parts: string[] = [];
  if (output.stdout) parts.push(withTruncationNote(`[stdout]\n${output.stdout.replace(/\n$/, '')}`, output.stdout_truncated, 'stdout'));
  if (output.stderr) parts.push(withTruncationNote(`[stderr]\n${output.stderr.replace(/\n$/, '')}`, output.stderr_truncated, 'stderr'));
  if (output.timed_out) parts.push(`[timed out after ${timeoutMs / 1000} s; the process group was killed]`);
  else if (output.exit_code === null) parts.push(`[killed by ${output.signal ?? 'a signal'}]`);
  else parts.push(`[exit code ${output.exit_code}]`);
  return parts.join('\n');
}
