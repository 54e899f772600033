/**
 * The episode API (docs/episodes-api.md): POST /v1/episodes {env, example_id | example, env_args?} -> {id, prompt,
 * tools, mcpUrl, expiresAt}; GET /v1/episodes/:id; POST /v1/episodes/:id/tools/:name (plain JSON arguments -> the
 * tool result); the MCP endpoint /v1/episodes/:id/mcp; POST /v1/episodes/:id/score {completion} -> {reward, metrics};
 * POST /v1/episodes/:id/step {message} -> {messages, done, reward?} and GET /v1/episodes/:id/state (the stepped
 * conversation); POST /v1/episodes/:id/fork {n} -> {ids, turn, episodes} and GET /v1/episodes/:id/record (the ended
 * episode's result record with its samples); DELETE /v1/episodes/:id. The route holds no episode logic: it validates, charges the principal's quota and maps
 * the service's error codes to statuses.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CorralError } from '../core/errors.js';
import { type EpisodeConversationState, type EpisodeStepOutcome, stepEpisodeBodySchema } from './episode-step-contract.js';
import { type EpisodeDescription, type EpisodeService, createEpisodeBodySchema, forkEpisodeBodySchema, scoreEpisodeBodySchema } from './episodes-contract.js';
import { EPISODE_STATUS_BY_CODE, episodeErrorAnswer } from './episodes-errors.js';
import { forkEpisodeForPrincipal } from './episodes-fork.js';
import { acceptRawTextBodies } from './request-body-parsing.js';
import { callerErrorBody, invalidRequestBody } from './rollouts-route.js';
import { disconnectSignal, toWebRequest } from './web-exchange.js';

export interface EpisodesRouteOptions {
  service: EpisodeService;
}

type EpisodeRequest = { Params: { id: string } };

export async function episodesRoute(app: FastifyInstance, options: EpisodesRouteOptions): Promise<void> {
  const { service } = options;
  const { quotas, resolvePrincipal } = app.corral;
  const principalOf = (request: FastifyRequest) => resolvePrincipal(request.headers, request.ip);
  // Episodes still open at shutdown run their cleanup hooks before the CLI closes the pool.
  app.addHook('preClose', async () => service.close());

  /** Runs one service call and answers its CorralErrors with their status and {error: {code, message, ...}}. */
  async function answer(reply: FastifyReply, work: () => Promise<unknown>, status = 200): Promise<FastifyReply> {
    try {
      const value = await work();
      return value === undefined ? reply.code(204).send() : reply.code(status).send(value);
    } catch (error) {
      const answered = episodeErrorAnswer(error);
      if (!answered) throw error;
      if (answered.infrastructure) reply.log.warn({ err: error }, 'episode request failed');
      return reply.code(answered.status).send(answered.body);
    }
  }

  app.post('/v1/episodes', async (request, reply) => {
    const body = createEpisodeBodySchema.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send(invalidRequestBody(body.error));
    const principal = principalOf(request);
    // Held while the setup hook runs, so concurrent creates cannot overshoot the quota; the open episode counts after.
    const releaseQuota = quotas.take('maxEpisodesPerPrincipal', principal, service.countOwnedBy(principal));
    try {
      return await answer(reply, async () => describe(request, await service.create(body.data, { principal, abortSignal: disconnectSignal(reply) })), 201);
    } finally {
      releaseQuota();
    }
  });

  app.get<EpisodeRequest>('/v1/episodes/:id', async (request, reply) =>
    answer(reply, async () => describe(request, service.describe(request.params.id, principalOf(request)))),
  );

  app.post<{ Params: { id: string; name: string } }>('/v1/episodes/:id/tools/:name', async (request, reply) => {
    const args = request.body ?? {};
    if (typeof args !== 'object' || Array.isArray(args))
      return reply.code(400).send({ error: { code: 'INVALID_REQUEST', message: '(body): the tool arguments must be a JSON object', field: '(body)' } });
    const principal = principalOf(request);
    return answer(reply, () =>
      quotas.runAs(principal, () =>
        service.callTool(request.params.id, request.params.name, args as Record<string, unknown>, { principal, abortSignal: disconnectSignal(reply) }),
      ),
    );
  });

  app.post<EpisodeRequest>('/v1/episodes/:id/score', async (request, reply) => {
    const body = scoreEpisodeBodySchema.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send(invalidRequestBody(body.error));
    const principal = principalOf(request);
    return answer(reply, () => service.score(request.params.id, body.data, { principal, abortSignal: disconnectSignal(reply) }));
  });

  app.post<EpisodeRequest>('/v1/episodes/:id/step', async (request, reply) => {
    const body = stepEpisodeBodySchema.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send(invalidRequestBody(body.error));
    const principal = principalOf(request);
    return answer(reply, () =>
      quotas.runAs(principal, () => service.step(request.params.id, body.data, { principal, abortSignal: disconnectSignal(reply) })).then(stepAnswer),
    );
  });

  app.get<EpisodeRequest>('/v1/episodes/:id/state', async (request, reply) =>
    answer(reply, async () => conversationAnswer(service.conversation(request.params.id, principalOf(request)))),
  );

  const forkBodySchema = forkEpisodeBodySchema(app.corral.config.server.maxEpisodeForks);
  app.post<EpisodeRequest>('/v1/episodes/:id/fork', async (request, reply) => {
    const body = forkBodySchema.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send(invalidRequestBody(body.error));
    const principal = principalOf(request);
    return answer(
      reply,
      async () => {
        const forked = await forkEpisodeForPrincipal(service, quotas, request.params.id, body.data, { principal, abortSignal: disconnectSignal(reply) });
        const episodes = forked.episodes.map((episode) => describe(request, episode));
        return { ids: episodes.map((episode) => episode.id), turn: forked.turn, episodes };
      },
      201,
    );
  });

  app.get<EpisodeRequest>('/v1/episodes/:id/record', async (request, reply) =>
    answer(reply, async () => service.record(request.params.id, principalOf(request))),
  );

  app.delete<EpisodeRequest>('/v1/episodes/:id', async (request, reply) => answer(reply, () => service.release(request.params.id, principalOf(request))));

  // MCP bodies reach the SDK as raw text (its own parse errors and 415s), so this route gets a scope of its own.
  await app.register(async (mcpScope) => {
    acceptRawTextBodies(mcpScope);
    mcpScope.route<EpisodeRequest>({
      method: ['GET', 'POST', 'DELETE'],
      url: '/v1/episodes/:id/mcp',
      handler: async (request, reply) => {
        const principal = principalOf(request);
        try {
          return reply.send(await quotas.runAs(principal, () => service.handleMcp(request.params.id, toWebRequest(request, reply), principal)));
        } catch (error) {
          if (!CorralError.isInstance(error) || !(error.code in EPISODE_STATUS_BY_CODE)) throw error;
          return reply.code(EPISODE_STATUS_BY_CODE[error.code]!).send(callerErrorBody(error));
        }
      },
    });
  });
}

function describe(request: FastifyRequest, episode: EpisodeDescription) {
  return {
    id: episode.id,
    env: episode.env,
    example_id: episode.exampleId,
    prompt: episode.prompt,
    tools: episode.tools,
    mcpUrl: `${request.protocol}://${request.host}/v1/episodes/${episode.id}/mcp`,
    expiresAt: new Date(episode.expiresAtMs).toISOString(),
  };
}

/** The step's answer in the wire's snake_case; the done-only fields only when done. */
export function stepAnswer(outcome: EpisodeStepOutcome) {
  if (!outcome.done) return { messages: outcome.messages, done: false };
  return {
    messages: outcome.messages,
    done: true,
    reward: outcome.reward,
    metrics: outcome.metrics,
    answer: outcome.answer ?? null,
    reason: outcome.reason,
    ...(outcome.environmentReason ? { environment_reason: outcome.environmentReason } : {}),
  };
}

export function conversationAnswer(state: EpisodeConversationState) {
  return {
    id: state.id,
    messages: state.messages,
    turns: state.turns,
    tokens: state.tokens,
    forked_from: state.forkedFrom,
    done: state.done,
    reward: state.reward,
    reason: state.reason,
  };
}
