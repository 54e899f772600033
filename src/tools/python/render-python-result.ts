import { withTruncationNote } from '../tool-result.js';
import type { PythonToolOutput } from './python-tool.js';

/** Renders a cell result the way a notebook shows it: printed output, then the traceback or the value. */
export function renderPythonResult(output: PythonToolOutput, timeoutMs: number): string {
  const parts: string[] = [];
  if (output.stdout) parts.push(withTruncationNote(output.stdout.replace(/\n$/, ''), output.stdout_truncated, 'stdout'));
  if (output.stderr) parts.push(withTruncationNote(`[stderr]\n${output.stderr.replace(/\n$/, '')}`, output.stderr_truncated, 'stderr'));
  if (output.error) parts.push(output.error.traceback.replace(/\n$/, '') || `${output.error.name}: ${output.error.message}`);
  else if (output.value !== null) parts.push(output.value);
  if (output.timed_out) parts.push(`[timed out after ${timeoutMs / 1000} s; the REPL was restarted and earlier variables are gone]`);
  else if (output.state_lost) parts.push('[the Python REPL had died and was restarted before this call: earlier variables are gone]');
  return parts.length > 0 ? parts.join('\n') : '(no output)';
}
