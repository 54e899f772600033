/**
 * target-sum: reach a target by adding numbers, then answer with the total. A small task whose state lives in both
 * places an episode fork copies: the sandbox (total.txt, which the add tool reads and rewrites) and the per-rollout
 * state (the numbers added). The reward is graded, not pass/fail, so continuations of one prefix can be ranked:
 * 1 - |target - total| / target for an answer that states the total, 0 for one that does not.
 *
 *   corral serve --env examples/best-of-n/env.ts
 */
import { defineAgent, defineEnvironment, defineTool, z, type ToolContext } from 'corral';

interface SumState {
  adds: number[];
}

const TOTAL_PATH = 'total.txt';
const sum = (state: SumState) => state.adds.reduce((total, n) => total + n, 0);

const add = defineTool({
  name: 'add',
  description: `Adds n to the running total kept in ${TOTAL_PATH} and returns the new total.`,
  inputSchema: z.object({ n: z.number().int().min(1).max(100).describe('the number to add') }),
  annotations: { readOnlyHint: false, idempotentHint: false },
  async execute({ n }, { state, sandbox }: ToolContext<SumState>) {
    const file = await sandbox.files.read({ path: TOTAL_PATH });
    if (file === null) return { text: `${TOTAL_PATH} is missing (setup did not run?)`, isError: true };
    const total = Number(file.content) + n;
    await sandbox.files.write({ path: TOTAL_PATH, content: `${total}\n` });
    state.adds.push(n);
    return String(total);
  },
});

export default defineEnvironment({
  name: 'target-sum',
  description: 'Reach the target by adding numbers with the add tool, then answer with the total alone.',
  toolsets: [],
  tools: [add],
  systemPrompt: 'Use the add tool to bring the total as close to the target as you can, then answer with the total alone.',
  dataset: () => [{ id: 'sum-20', prompt: 'Reach 20.', answer: 20 }],
  state: (): SumState => ({ adds: [] }),
  async setup({ sandbox }) {
    await sandbox.files.write({ path: TOTAL_PATH, content: '0\n' });
  },
  rubric: [
    {
      name: 'closeness',
      weight: 1,
      score: ({ example, trajectory, state }) => {
        const target = Number(example.answer);
        return trajectory.answer === String(sum(state)) ? Math.max(0, 1 - Math.abs(target - sum(state)) / target) : 0;
      },
    },
    { name: 'total', weight: 0, score: ({ state }) => sum(state) },
  ],
  maxTurns: 6,
});

/**
 * The oracle `corral env check examples/best-of-n/env.ts` runs (and `corral eval ... --agent oracle`): adds the
 * target in one call and answers with the total the tool returned, so it earns the full reward of 1.
 */
export const agents = {
  oracle: defineAgent({
    name: 'oracle',
    async run({ example, callTool, answer }) {
      const total = await callTool('add', { n: Number(example.answer) });
      answer(total.text.trim());
    },
  }),
};
