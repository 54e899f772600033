/**
 * The turns of an environment with roles inside one rollout (docs/environments.md, "Several agents (roles)"). Each
 * role's agent runs its own conversation with its own recorder; the turn passes in the environment's role order.
 * When a role's turn ends without a tool call, respond turns what it said into the next role's user message(s): the
 * next role starts with them after the prompt (its first turn) or gets them as the environment's reply, and the role
 * that spoke waits until the turn comes back to it. The game ends for every role when respond says done, a stop
 * predicate holds, or any role stops playing (max turns, a failure).
 */
import type { Agent, AgentEnvironmentTurn } from '../agents/agent.js';
import { agentPromptMessages } from '../agents/prompt-messages.js';
import type { Example } from '../contract/environment.js';
import type { EnvironmentRollout } from '../contract/environment-rollout.js';
import type { ChatMessage } from '../trajectory/messages.js';
import { TrajectoryRecorder } from '../trajectory/trajectory-recorder.js';
import type { ReplyEnding } from './environment-replies.js';
import { describeFailure } from './rollout-error.js';

export interface RolePlayer {
  readonly role: string;
  readonly agent: Agent;
  readonly recorder: TrajectoryRecorder;
  /** The conversation the role's agent started from (its first user turn may carry the previous role's move). */
  prompt: ChatMessage[] | null;
}

export interface RoleTurnsOptions {
  rollout: EnvironmentRollout;
  players: readonly RolePlayer[];
  example: Example;
  systemPrompt: string;
  maxTurns: number;
  rolloutIndex: number;
  seed?: number;
  abortSignal: AbortSignal;
  /** What a failure that happened because the rollout was cancelled or timed out is blamed on. */
  abortError(): Error;
}

/** The players with their recorders and, once they played, their prompt. */
export function rolePlayers(roles: readonly string[], agentFor: (role: string) => Agent): RolePlayer[] {
  return roles.map((role) => ({ role, agent: agentFor(role), recorder: new TrajectoryRecorder(), prompt: null }));
}

/** Plays the roles in turn until the game ends; resolves once every agent that started has returned. Never throws. */
export async function playRoles(options: RoleTurnsOptions): Promise<ReplyEnding | null> {
  const { rollout, players, abortSignal } = options;
  const waiting = new Map<RolePlayer, { resolve(turn: AgentEnvironmentTurn): void; reject(error: Error): void }>();
  const running = new Set<Promise<void>>();
  let ending: ReplyEnding | null = null;
  let over = false;
  const end = (how: ReplyEnding | null): AgentEnvironmentTurn => {
    if (!over) ending = how;
    over = true;
    for (const [, turn] of waiting) turn.resolve({ done: true });
    waiting.clear();
    return { done: true };
  };
  // A role waiting for its turn would otherwise wait past a cancel or the rollout deadline.
  const onAbort = () => {
    over = true;
    for (const [, turn] of waiting) turn.reject(options.abortError());
    waiting.clear();
  };
  abortSignal.addEventListener('abort', onAbort, { once: true });
  const totalTurns = () => players.reduce((sum, player) => sum + player.recorder.turns, 0);

  const start = (player: RolePlayer, opening: readonly ChatMessage[]) => {
    const example: Example =
      opening.length === 0
        ? options.example
        : {
            ...options.example,
            prompt: [
              ...(typeof options.example.prompt === 'string' ? [{ role: 'user' as const, content: options.example.prompt }] : options.example.prompt),
              ...opening,
            ],
          };
    player.prompt = agentPromptMessages(options.systemPrompt, example);
    const run = player.agent
      .run({
        example,
        systemPrompt: options.systemPrompt,
        tools: rollout.tools,
        maxTurns: options.maxTurns,
        recorder: player.recorder,
        abortSignal,
        rolloutIndex: options.rolloutIndex,
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        environmentReply: () => passTurn(player),
      })
      .catch((error: unknown) => player.recorder.fail(describeFailure(abortSignal.aborted ? options.abortError() : error, 'model')))
      // A role that stops playing (max turns, a failure) ends the game: the others would wait for it forever.
      .finally(() => {
        end(null);
        running.delete(run);
      });
    running.add(run);
  };

  const passTurn = async (player: RolePlayer): Promise<AgentEnvironmentTurn> => {
    if (over) return { done: true };
    const next = players[(players.indexOf(player) + 1) % players.length]!;
    const turn = totalTurns();
    if (rollout.shouldStop(player.recorder.snapshot())) return end('stopped');
    const messages = [...player.prompt!, ...player.recorder.snapshot().completion];
    const reply = await rollout.respond({ messages, turn, role: player.role, nextRole: next.role }, { abortSignal });
    player.recorder.userCalls(reply.userCalls);
    if (over) return { done: true };
    if (reply.done) {
      for (const each of players) each.recorder.environmentDone(turn, reply.reason);
      return end('done');
    }
    if (rollout.shouldStop(player.recorder.snapshot())) return end('stopped');
    // Wait first, then hand over: the next role may answer before this function returns.
    const myTurn = new Promise<AgentEnvironmentTurn>((resolve, reject) => waiting.set(player, { resolve, reject }));
    const nextTurn = waiting.get(next);
    if (nextTurn) {
      waiting.delete(next);
      next.recorder.environmentReply(reply.messages, next.recorder.turns);
      nextTurn.resolve({ done: false, messages: reply.messages });
    } else {
      start(next, reply.messages);
    }
    return myTurn;
  };

  start(players[0]!, []);
  while (running.size > 0) await Promise.all([...running]);
  abortSignal.removeEventListener('abort', onAbort);
  return ending;
}
