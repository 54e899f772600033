import type Docker from 'dockerode';
import { CORRAL_CONTAINER_FILTER, LABEL_EXPIRES, LABEL_OWNER } from './docker-labels.js';
import { isGoneOrGoing } from './docker-errors.js';

export interface CleanupOptions {
  ownerAlive: (ownerId: string) => boolean;
  all?: boolean;
  nowMs?: number;
}

/** Removals in flight at once: enough to clear hundreds quickly without flooding a shared daemon. */
const REMOVE_CONCURRENCY = 8;

/** Why a labelled container should go, or undefined to keep it. */
export function staleReason(labels: Record<string, string>, options: CleanupOptions): string | undefined {
  if (options.all) return 'all';
  const ownerId = labels[LABEL_OWNER];
  // Without an owner or expiry label nobody can ever claim or expire it: it is debris.
  if (!ownerId) return 'no owner label';
  const expiresAtMs = Number(labels[LABEL_EXPIRES]);
  if (!Number.isFinite(expiresAtMs)) return 'no expiry label';
  if (expiresAtMs <= (options.nowMs ?? Date.now())) return 'expired';
  if (!options.ownerAlive(ownerId)) return 'owner gone';
  return undefined;
}

/**
 * Removes (force: kill + remove in one call) every corral container, in any state, that is stale. A
 * container someone else removed meanwhile (404/409) still counts: it matched and is gone.
 */
export async function cleanupContainers(docker: Docker, options: CleanupOptions): Promise<number> {
  const containers = await docker.listContainers({ all: true, filters: { label: [CORRAL_CONTAINER_FILTER] } });
  const stale = containers.filter((container) => staleReason(container.Labels ?? {}, options) !== undefined);
  let removed = 0;
  const queue = [...stale];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      try {
        await docker.getContainer(next.Id).remove({ force: true, v: true });
        removed += 1;
      } catch (error) {
        if (!isGoneOrGoing(error)) throw error;
        removed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(REMOVE_CONCURRENCY, queue.length) }, worker));
  return removed;
}
