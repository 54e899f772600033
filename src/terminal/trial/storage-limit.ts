import type Docker from 'dockerode';
import type { TerminalTask } from '../terminal-task.js';

/**
 * [environment].storage_mb, checked once the agent phase is over: Docker's overlay2 storage driver cannot cap a
 * container's writable layer on ext4, so the layer's size (SizeRw) is measured instead. Over the limit, the
 * attempt scores 0 unverified with TERMINAL_ERR_STORAGE_EXCEEDED in info.agent_phase.error, and its files are never
 * committed and copied again for a verifier.
 */
export async function storageExcess(docker: Docker, containerId: string, task: TerminalTask): Promise<{ code: string; message: string } | undefined> {
  const limitMb = task.environment.storageMb;
  if (limitMb === undefined) return undefined;
  const container = docker.getContainer(containerId);
  // dockerode sends inspect's options as the query (size=true adds SizeRw); its types omit the option.
  const inspect = container.inspect.bind(container) as unknown as (options: { size: boolean }) => Promise<{ SizeRw?: number }>;
  const info = await inspect({ size: true });
  const usedMb = (info.SizeRw ?? 0) / (1024 * 1024);
  if (usedMb <= limitMb) return undefined;
  return {
    code: 'TERMINAL_ERR_STORAGE_EXCEEDED',
    message: `${task.name}: the agent phase left ${usedMb.toFixed(1)} MB in the container's file system, more than [environment].storage_mb ${limitMb}`,
  };
}
