/**
 * POST /v1/episodes/<id>/fork {n}: n child episodes that continue the parent from its current turn (docs/episodes-api.md,
 * "Fork"). Each child gets a copy of the parent's state (the environment's forkState, else structuredClone), a
 * sandbox started from one snapshot of the parent's (sandbox/fork.ts: files of the workspace, /tmp and /dev/shm;
 * nothing running carries over), and a copy of the conversation with its token ids, so every child's samples start
 * with the same prefix. The parent is unchanged and stays open. All or nothing: a child that cannot be made closes
 * every child made so far (their cleanup hooks run on their copies) and the fork throws its error.
 */
import { EpisodeStore } from './episode-store.js';
import { type OpenEpisode, assembleOpenEpisode } from './episode-open.js';
import { openEnvironmentRollout } from './environment-rollouts.js';
import type { RolloutCheckpoint } from '../../runner/contract/environment-rollout.js';

export interface ForkEpisodeOptions {
  count: number;
  abortSignal: AbortSignal;
  log?: (details: Record<string, unknown>, message: string) => void;
}

/**
 * The children, opened and ready; the caller stores them. Throws EPISODE_ERR_BUSY / EPISODE_ERR_DONE as a step would,
 * SBX_ERR_UNSUPPORTED when a sandbox the episode holds cannot fork (an isolate behind the JavaScript tool, a backend
 * without 'fork'), ENV_ERR_FORK_STATE_FAILED when the state cannot be copied, and sandbox or pool faults as they are.
 */
export async function forkEpisode(parent: OpenEpisode, options: ForkEpisodeOptions): Promise<OpenEpisode[]> {
  const releaseHold = parent.conversation.holdForFork();
  const endCall = parent.rollout.sandboxes.beginCall();
  try {
    const { abortSignal } = options;
    // An isolate's heap cannot be copied: an episode whose JavaScript REPL holds state refuses before anything is copied.
    await parent.rollout.sandboxes.snapshot('javascript', { abortSignal });
    const checkpoint = await parent.rollout.checkpoint({ abortSignal });
    const settled = await Promise.allSettled(Array.from({ length: options.count }, () => openChild(parent, checkpoint, options)));
    const children = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const failure = settled.find((outcome) => outcome.status === 'rejected');
    if (failure) {
      await Promise.all(children.map((child) => child.dispose()));
      throw failure.reason;
    }
    return children;
  } finally {
    endCall();
    releaseHold();
  }
}

async function openChild(parent: OpenEpisode, checkpoint: RolloutCheckpoint, options: ForkEpisodeOptions): Promise<OpenEpisode> {
  const { environment, example, toolsetTools, sandboxSource } = parent.origin;
  const rollout = await openEnvironmentRollout({ environment, example, toolsetTools, sandboxSource, abortSignal: options.abortSignal, from: checkpoint });
  try {
    // Leased now rather than at the child's first call: a sandbox that cannot be made fails the fork, never a later step.
    if (checkpoint.sandbox) await rollout.sandboxes.session('general', { abortSignal: options.abortSignal });
  } catch (error) {
    await rollout.close();
    throw error;
  }
  const id = EpisodeStore.newId();
  return assembleOpenEpisode({
    id,
    principal: parent.principal,
    rollout,
    description: { ...parent.description, id },
    conversation: parent.conversation.copyFor(id, rollout),
    origin: parent.origin,
    ...(options.log ? { log: options.log } : {}),
  });
}
