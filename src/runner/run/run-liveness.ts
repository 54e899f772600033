/**
 * Who is writing a run: metadata.json names the pid and host of the `corral eval` that has it open (status
 * "running"). A run found "running" whose process is gone was interrupted (SIGKILL, a crash, a lost node);
 * one whose process is alive on this host must not be resumed alongside it.
 */
import { hostname } from 'node:os';
import { isProcessAlive } from '../../core/process-alive.js';

export interface RunWriter {
  pid: number;
  hostname: string;
}

export const thisWriter = (): RunWriter => ({ pid: process.pid, hostname: hostname() });

export type RunLiveness =
  { state: 'not-running' } | { state: 'interrupted'; writer: RunWriter } | { state: 'active'; writer: RunWriter } | { state: 'unknown'; writer: RunWriter };

export function runLiveness(metadata: Record<string, unknown> | null): RunLiveness {
  if (metadata?.status !== 'running') return { state: 'not-running' };
  const writer = { pid: Number(metadata.pid), hostname: String(metadata.hostname ?? '') };
  if (!Number.isInteger(writer.pid) || writer.pid <= 0) return { state: 'interrupted', writer };
  if (writer.hostname !== hostname()) return { state: 'unknown', writer };
  return isProcessAlive(writer.pid) && writer.pid !== process.pid ? { state: 'active', writer } : { state: 'interrupted', writer };
}
