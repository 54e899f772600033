/**
 * The episode API over one WebSocket (/ws/episodes), with reset/step/state/close semantics close to OpenEnv's, so a
 * Gym-style trainer attaches without glue. One JSON message per text frame, answered in order, one episode per
 * connection at a time:
 *
 *   {type: "reset", data: {env, example_id | example, env_args?}} -> {type: "observation", data: {observation:
 *       {episode_id, env, example_id, prompt, tools}, reward: null, done: false}}   (a reset releases the previous episode)
 *   {type: "step", data: {message}} -> {type: "observation", data: {observation: {messages}, reward, done, metadata?}}
 *   {type: "state"}                 -> {type: "state", data: {episode_id, step_count, messages, done, reward, reason}}
 *   {type: "fork", data: {n}}       -> {type: "forked", data: {ids, turn, episodes: [{episode_id, env, example_id, prompt,
 *       tools}]}}   (n children of this connection's episode at its current turn, as POST /v1/episodes/<id>/fork makes
 *       them; the connection stays on the parent, and the children are the principal's episodes, driven over HTTP or
 *       released by DELETE or idle expiry: closing this socket does not release them)
 *   {type: "close"}                 -> the episode is released (cleanup hook) and the socket closes (1000)
 *   any refusal or fault            -> {type: "error", data: {code, message, status, ...details}}
 *
 * Episodes made here are the same episodes as POST /v1/episodes (the principal's quota, idle expiry, GET by id);
 * closing the socket releases the open one. A client more than MAX_WAITING_FRAMES frames ahead of its answers is
 * closed (1008).
 */
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { CorralError } from '../core/errors.js';
import { stepEpisodeBodySchema } from './episode-step-contract.js';
import { type EpisodeDescription, type EpisodeService, createEpisodeBodySchema, forkEpisodeBodySchema } from './episodes-contract.js';
import { episodeErrorAnswer } from './episodes-errors.js';
import { forkEpisodeForPrincipal } from './episodes-fork.js';
import { conversationAnswer } from './episodes-route.js';
import type { PrincipalQuotas } from './principal-quotas.js';
import { invalidRequestBody } from './rollouts-route.js';

/** The messages a client may send; fork's n is bounded by the server's cap (config server.maxEpisodeForks). */
function socketMessageSchema(maxEpisodeForks: number) {
  return z.discriminatedUnion('type', [
    z.object({ type: z.literal('reset'), data: createEpisodeBodySchema }).strict(),
    z.object({ type: z.literal('step'), data: stepEpisodeBodySchema }).strict(),
    z.object({ type: z.literal('state') }).strict(),
    z.object({ type: z.literal('fork'), data: forkEpisodeBodySchema(maxEpisodeForks) }).strict(),
    z.object({ type: z.literal('close') }).strict(),
  ]);
}

type SocketMessage = z.output<ReturnType<typeof socketMessageSchema>>;

/** Frames read but not yet answered: a client that sends far ahead of the answers is closed, so memory stays bounded. */
export const MAX_WAITING_FRAMES = 16;

export interface EpisodeSocketOptions {
  service: EpisodeService;
  principal: string;
  quotas: PrincipalQuotas;
  /** The most children one fork may ask for (config server.maxEpisodeForks). */
  maxEpisodeForks: number;
  log: (details: Record<string, unknown>, message: string) => void;
}

export function serveEpisodeSocket(socket: WebSocket, options: EpisodeSocketOptions): void {
  const { service, principal, quotas } = options;
  const messageSchema = socketMessageSchema(options.maxEpisodeForks);
  let episodeId: string | undefined;
  // Aborts the running call when the socket goes away (its tool calls stop; the episode is released after).
  const closed = new AbortController();
  // Frames are answered one at a time, in order: a trainer's step waits for the previous answer anyway.
  let queue: Promise<void> = Promise.resolve();

  const send = (type: string, data: unknown) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ type, data }));
  };

  const releaseCurrent = async () => {
    const id = episodeId;
    episodeId = undefined;
    if (id !== undefined) await service.release(id, principal).catch(() => undefined);
  };

  const currentEpisode = (): string => {
    if (episodeId !== undefined) return episodeId;
    throw new CorralError('EPISODE_ERR_NOT_FOUND', 'this connection has no episode: send {"type": "reset", "data": {"env": ...}} first');
  };

  async function handle(message: SocketMessage): Promise<void> {
    const call = { principal, abortSignal: closed.signal };
    switch (message.type) {
      case 'reset': {
        await releaseCurrent();
        const releaseQuota = quotas.take('maxEpisodesPerPrincipal', principal, service.countOwnedBy(principal));
        try {
          const episode = await service.create(message.data, call);
          episodeId = episode.id;
          return send('observation', { observation: describe(episode), reward: null, done: false });
        } finally {
          releaseQuota();
        }
      }
      case 'step': {
        const outcome = await quotas.runAs(principal, () => service.step(currentEpisode(), message.data, call));
        const metadata = outcome.done
          ? { metrics: outcome.metrics, answer: outcome.answer ?? null, reason: outcome.reason, environment_reason: outcome.environmentReason ?? null }
          : undefined;
        return send('observation', {
          observation: { messages: outcome.messages },
          reward: outcome.reward ?? null,
          done: outcome.done,
          ...(metadata ? { metadata } : {}),
        });
      }
      case 'state': {
        const { id, turns, ...state } = conversationAnswer(service.conversation(currentEpisode(), principal));
        return send('state', { episode_id: id, step_count: turns, ...state });
      }
      case 'fork': {
        const forked = await forkEpisodeForPrincipal(service, quotas, currentEpisode(), message.data, call);
        return send('forked', { ids: forked.episodes.map((episode) => episode.id), turn: forked.turn, episodes: forked.episodes.map(describe) });
      }
      case 'close':
        await releaseCurrent();
        return void socket.close(1000, 'closed by the client');
    }
  }

  function describe(episode: EpisodeDescription) {
    return { episode_id: episode.id, env: episode.env, example_id: episode.exampleId, prompt: episode.prompt, tools: episode.tools };
  }

  function answerError(error: unknown): void {
    if (CorralError.hasCode(error, 'HTTP_ERR_QUOTA_EXCEEDED'))
      return send('error', { code: error.code, message: error.message, status: 429, ...error.details });
    const answered = episodeErrorAnswer(error);
    if (!answered) {
      options.log({ err: error }, 'episode socket call failed');
      return send('error', { code: 'INTERNAL', message: 'Internal server error', status: 500 });
    }
    if (answered.infrastructure) options.log({ err: error }, 'episode socket call failed');
    send('error', { ...answered.body.error, status: answered.status });
  }

  let waitingFrames = 0;
  socket.on('message', (data, isBinary) => {
    if (++waitingFrames > MAX_WAITING_FRAMES) return void socket.close(1008, `more than ${MAX_WAITING_FRAMES} frames waiting for their answers`);
    queue = queue.then(async () => {
      waitingFrames--;
      let parsed: unknown;
      try {
        parsed = JSON.parse(isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString());
      } catch {
        return send('error', { code: 'INVALID_REQUEST', message: '(frame): not JSON; send one JSON object per text frame', field: '(frame)', status: 400 });
      }
      const message = messageSchema.safeParse(parsed);
      if (!message.success) return send('error', { ...invalidRequestBody(message.error).error, status: 400 });
      await handle(message.data).catch(answerError);
    });
  });

  socket.on('close', () => {
    closed.abort(new CorralError('ERR_ABORTED', 'the episode socket closed'));
    // After the call in flight settles: it holds the episode until then.
    queue = queue.then(releaseCurrent);
  });
}
