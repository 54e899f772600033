/**
 * A customer-service desk, tau-bench style: the customer is a simulated user (a second model with its own endpoint
 * and sampling) who knows the account details the agent must ask for; the agent has tools over a database (a fresh
 * copy per rollout) and the rubric checks the database afterwards: the right account moved to the wanted plan, no
 * other account touched. The user model is chosen with env args:
 *
 *   corral eval ./examples/customer-service/index.ts --model Qwen/Qwen3-8B --base-url http://localhost:8000/v1 \
 *     --env-args '{"user_model":"Qwen/Qwen3-8B","user_base_url":"http://localhost:8000/v1"}'
 */
import { defineEnvironmentFactory, defineTool, simulatedUser, z, type ToolContext } from 'corral';
import { ACCOUNTS, CUSTOMERS, PLANS, type Account } from './accounts.js';
import { deskAgents } from './agents.js';

interface Desk {
  accounts: Record<string, Account>;
}

const findAccount = defineTool({
  name: 'find_account',
  description: 'Looks an account up by its id (e.g. A-1000): the holder name and the current plan.',
  inputSchema: z.object({ account_id: z.string() }),
  annotations: { readOnlyHint: true },
  execute({ account_id }, { state }: ToolContext<Desk>) {
    const account = state.accounts[account_id.trim()];
    if (!account) throw new Error(`no account ${account_id}`);
    return `${account_id}: ${account.name}, plan ${account.plan}`;
  },
});

const changePlan = defineTool({
  name: 'change_plan',
  description: `Moves an account to another plan (${PLANS.join(', ')}). Confirm the account with the customer first.`,
  inputSchema: z.object({ account_id: z.string(), plan: z.enum(PLANS) }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  execute({ account_id, plan }, { state }: ToolContext<Desk>) {
    const account = state.accounts[account_id.trim()];
    if (!account) throw new Error(`no account ${account_id}`);
    account.plan = plan;
    return `${account_id} is now on the ${plan} plan`;
  },
});

const USER_PROMPT = [
  'You are a customer writing to a support desk to change your subscription plan. You know only what is below.',
  "Answer the agent's questions briefly and truthfully; do not offer details before you are asked.",
  'When the agent confirms the change, thank them and end your message with ###STOP###.',
].join(' ');

export default defineEnvironmentFactory({
  name: 'customer-service',
  description: 'Change a subscription plan for a simulated customer who holds the account details; tools over a database.',
  argsSchema: z
    .object({
      user_model: z.string().default('customer').describe("the simulated customer's model"),
      user_base_url: z.string().url().optional().describe("the customer model's endpoint (default OPENAI_BASE_URL)"),
    })
    .strict(),
  create: (args) => ({
    name: 'customer-service',
    tools: [findAccount, changePlan],
    dataset: () =>
      CUSTOMERS.map((customer, index) => ({
        id: `customer-${index}`,
        prompt: 'Hi, I would like to change my subscription plan.',
        answer: { account_id: customer.account_id, plan: customer.wants },
        // The simulated user's hidden information (simulatedUser reads info.user by default).
        info: { user: customer },
      })),
    state: (): Desk => ({ accounts: structuredClone(ACCOUNTS) as Record<string, Account> }),
    respond: simulatedUser({ model: args.user_model, baseUrl: args.user_base_url, systemPrompt: USER_PROMPT, sampling: { temperature: 0.7 } }),
    rubric: [
      {
        name: 'database',
        weight: 1,
        score: ({ state, example }) => {
          const { account_id, plan } = example.answer as { account_id: string; plan: string };
          const others = Object.entries((state as Desk).accounts).filter(([id]) => id !== account_id);
          const untouched = others.every(([id, account]) => account.plan === ACCOUNTS[id]!.plan);
          return (state as Desk).accounts[account_id]?.plan === plan && untouched ? 1 : 0;
        },
      },
    ],
    systemPrompt:
      'You are a support agent. Ask the customer for their account id and the plan they want, check the account with find_account, change it with change_plan, then confirm.',
    maxTurns: 10,
  }),
});

/** The oracle `corral env check` plays (agents.ts). */
export const agents = deskAgents;
