/**
 * Forking an episode for a principal, shared by POST /v1/episodes/<id>/fork and /ws/episodes' fork message: the
 * children are episodes like any, one unit of the open-episode quota each, held while they are made (so concurrent
 * forks and creates cannot overshoot it), and the fork runs under the principal's concurrency share.
 */
import type { EpisodeCallOptions, EpisodeForkOutcome, EpisodeService, ForkEpisodeBody } from './episodes-contract.js';
import type { PrincipalQuotas } from './principal-quotas.js';

export async function forkEpisodeForPrincipal(
  service: EpisodeService,
  quotas: PrincipalQuotas,
  id: string,
  body: ForkEpisodeBody,
  call: EpisodeCallOptions,
): Promise<EpisodeForkOutcome> {
  const held: (() => void)[] = [];
  try {
    for (let child = 0; child < body.n; child++) held.push(quotas.take('maxEpisodesPerPrincipal', call.principal, service.countOwnedBy(call.principal)));
    return await quotas.runAs(call.principal, () => service.fork(id, body, call));
  } finally {
    for (const release of held) release();
  }
}
