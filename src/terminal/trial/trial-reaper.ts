/**
 * What a corral process that died (SIGKILL, a crash) leaves of its trials: agent and verifier containers, still
 * running, and the images committed for its verifiers. All carry the owner and expiry labels (a committed image
 * inherits its container's), so they are removed by the sandboxes' rule: owner gone or expiry passed. Called when a
 * terminal run starts and by `corral cleanup`.
 */
import type Docker from 'dockerode';
import { type CleanupOptions, cleanupContainers, staleReason } from '../../sandbox/docker/container-cleanup.js';
import { isGoneOrGoing } from '../../sandbox/docker/docker-errors.js';

/** The repository of the images committed for verifiers (corral-trial:<verifier id>). */
export const COMMITTED_TRIAL_REPOSITORY = 'corral-trial';

export interface ReapedTrialLeftovers {
  containers: number;
  images: number;
}

/** Removes stale corral containers (trials' among them), then stale committed trial images. */
export async function reapTrialLeftovers(docker: Docker, options: CleanupOptions): Promise<ReapedTrialLeftovers> {
  // Containers first: an image a container still uses cannot go.
  const containers = await cleanupContainers(docker, options);
  return { containers, images: await removeStaleCommittedImages(docker, options) };
}

/** Removes every corral-trial:* image whose owner is gone or whose expiry passed (every one with options.all). */
export async function removeStaleCommittedImages(docker: Docker, options: CleanupOptions): Promise<number> {
  const images = await docker.listImages({ filters: { reference: [COMMITTED_TRIAL_REPOSITORY] } });
  let removed = 0;
  for (const image of images) {
    if (staleReason(image.Labels ?? {}, options) === undefined) continue;
    for (const tag of image.RepoTags?.filter((each) => each.startsWith(`${COMMITTED_TRIAL_REPOSITORY}:`)) ?? [image.Id]) {
      try {
        await docker.getImage(tag).remove({ force: true });
        removed += 1;
      } catch (error) {
        if (!isGoneOrGoing(error)) throw error;
      }
    }
  }
  return removed;
}
