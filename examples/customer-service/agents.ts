/**
 * The desk's oracle for `corral env check` (and `corral eval --agent oracle`): a support agent that knows the right
 * answer (the example's account and wanted plan) but still holds the conversation, so the simulated customer is
 * asked, answers, and ends it when told the plan changed. It asks first, then looks the account up, changes the plan
 * and confirms; after that it only asks whether anything else is needed, until the customer stops or turns run out.
 */
import type { Agent, AgentRunInput } from 'corral';

const ASK = 'Happy to help. What is your account id, and which plan would you like?';
const ANYTHING_ELSE = 'Is there anything else I can do for you?';

class DeskOracle implements Agent {
  readonly name = 'oracle';
  readonly model = 'oracle';
  readonly takesEnvironmentReplies = true;

  async run(input: AgentRunInput): Promise<void> {
    const { account_id, plan } = input.example.answer as { account_id: string; plan: string };
    let turns = 0;
    // Says one thing; true while the customer goes on talking.
    const say = async (text: string): Promise<boolean> => {
      turns++;
      input.recorder.startTurn();
      input.recorder.message({ role: 'assistant', content: text });
      input.recorder.answer(text);
      if (!input.environmentReply) return false;
      return !(await input.environmentReply()).done;
    };
    const call = async (name: string, args: Record<string, unknown>) => {
      turns++;
      const turn = input.recorder.startTurn();
      const request = { id: `call_${turn}`, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } };
      input.recorder.message({ role: 'assistant', content: null, tool_calls: [request] });
      return input.recorder.callTool(input.tools, request, turn, input.abortSignal);
    };
    if (!(await say(ASK))) return;
    await call('find_account', { account_id });
    const changed = await call('change_plan', { account_id, plan });
    if (!(await say(`All set: ${changed.text}.`))) return;
    while (turns < input.maxTurns && (await say(ANYTHING_ELSE)));
  }
}

export const deskAgents = { oracle: (): Agent => new DeskOracle() };
