/**
 * Nim's oracle for `corral env check` (and `corral eval --agent oracle`), for either role: it reads the pile from the
 * last thing the referee said and plays the winning strategy, leaving a multiple of four stones when it can (one
 * stone when it cannot), then waits for the referee's next message until the game is over.
 */
import type { Agent, AgentRunInput, ChatMessage } from 'corral';

/** The pile in "There are 7 stones on the table." or "Your opponent took 2; 5 stones left.". */
const pile = (said: string): number => Number(/(\d+) stones/.exec(said)?.[1] ?? 1);

const lastSaid = (prompt: string | ChatMessage[]): string => (typeof prompt === 'string' ? prompt : String(prompt.at(-1)?.content ?? ''));

class NimOracle implements Agent {
  readonly name = 'oracle';
  readonly model = 'oracle';
  readonly takesEnvironmentReplies = true;

  async run(input: AgentRunInput): Promise<void> {
    let heard = lastSaid(input.example.prompt);
    for (let turn = 0; turn < input.maxTurns; turn++) {
      const take = String(pile(heard) % 4 || 1);
      input.recorder.startTurn();
      input.recorder.message({ role: 'assistant', content: take });
      input.recorder.answer(take);
      const reply = await input.environmentReply?.();
      if (!reply || reply.done) return;
      heard = reply.messages.map((message) => String(message.content ?? '')).join('\n');
    }
  }
}

export const nimAgents = { oracle: (): Agent => new NimOracle() };
