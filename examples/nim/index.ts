/**
 * Nim in self-play: two roles, `first` and `second`, take 1 to 3 stones in turn from one shared pile; whoever takes
 * the last stone wins. No tools: `respond` reads each move, updates the shared state and tells the other role what
 * happened as its next user message, so each role sees the game from its own side. The rubric scores each role
 * (`role`), and the record keeps both trajectories and both rewards (`roles`).
 *
 *   corral eval ./examples/nim/index.ts --model Qwen/Qwen3-8B --base-url http://localhost:8000/v1
 */
import { defineEnvironment, type ChatMessage, type EnvironmentReply, type RespondContext } from 'corral';
import { nimAgents } from './agents.js';

interface Game {
  stones: number;
  winner: string | null;
  moves: { role: string; took: number }[];
}

/** The last number the role said, without a <think> block. */
function move(messages: readonly ChatMessage[]): number | null {
  const last = [...messages].reverse().find((message) => message.role === 'assistant');
  const said = (last?.content ?? '').replace(/<think>[\s\S]*?<\/think>/g, '');
  const number = said.match(/\d+/g)?.at(-1);
  return number === undefined ? null : Number(number);
}

function referee({ messages, state, role, nextRole }: RespondContext<Game>): EnvironmentReply {
  const took = move(messages);
  // An illegal move loses the game: the opponent wins.
  if (took === null || took < 1 || took > 3 || took > state.stones) {
    state.winner = nextRole!;
    return { done: true, reason: `${role} made an illegal move` };
  }
  state.stones -= took;
  state.moves.push({ role: role!, took });
  if (state.stones === 0) {
    state.winner = role!;
    return { done: true, reason: `${role} took the last stone` };
  }
  return { messages: `Your opponent took ${took}; ${state.stones} stones left. Your move.` };
}

export default defineEnvironment({
  name: 'nim',
  description: 'Nim for two players in self-play: take 1 to 3 stones, whoever takes the last stone wins.',
  roles: ['first', 'second'],
  dataset: () => [5, 6, 7, 9].map((stones) => ({ id: `pile-${stones}`, prompt: `There are ${stones} stones on the table.`, answer: stones })),
  state: ({ example }): Game => ({ stones: Number(example.answer), winner: null, moves: [] }),
  respond: referee,
  rubric: [
    { name: 'won', weight: 1, score: ({ state, role }) => (state.winner === role ? 1 : 0) },
    { name: 'moves', weight: 0, score: ({ state, role }) => state.moves.filter((each) => each.role === role).length },
  ],
  systemPrompt:
    'We play Nim. Players take turns removing 1, 2 or 3 stones from the pile; whoever takes the last stone wins. Reply with the number of stones you take, nothing else.',
  maxTurns: 10,
});

/** The oracle `corral env check` plays (agents.ts). */
export const agents = nimAgents;
