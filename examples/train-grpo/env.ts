/**
 * The environment the GRPO example trains on: a box holds a one-letter key; the model must open it with the
 * `open_box` tool and then answer with the key. Easy enough for a policy learned from scratch in a few minutes,
 * and every rewarded rollout crosses a tool result, so the trainer's token path runs through inserted tokens.
 *
 *   corral serve --env examples/train-grpo/env.ts     # then: /usr/bin/python3 examples/train-grpo/train.py
 */
import { defineEnvironment, defineTool, z, type ToolContext } from 'corral';

interface BoxState {
  opens: number;
}

/** The keys are letters the example policy can write (its alphabet is in examples/train-grpo/policy.py). */
const BOXES = [
  { id: 'box-1', key: 'b' },
  { id: 'box-2', key: 'c' },
  { id: 'box-3', key: 'a' },
  { id: 'box-4', key: 'b' },
];

const openBox = defineTool({
  name: 'open_box',
  description: 'Open the box and read the key inside it.',
  inputSchema: z.object({}),
  outputSchema: z.object({ key: z.string() }),
  annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false },
  execute(_input, { state, example }: ToolContext<BoxState>) {
    state.opens += 1;
    const key = String(example.answer);
    return { text: key, structuredContent: { key } };
  },
});

export default defineEnvironment({
  name: 'keybox',
  description: 'Open the box with the open_box tool, then answer with the one-letter key inside.',
  tools: [openBox],
  dataset: () => BOXES.map((box) => ({ id: box.id, prompt: `${box.id}: open it, then say the key.`, answer: box.key })),
  state: (): BoxState => ({ opens: 0 }),
  // Opening once is worth a little, the key after it the rest. Opening again earns nothing: a policy that only
  // learned to call the tool is pushed on to answer.
  rubric: [
    { name: 'opened_once', weight: 0.25, score: ({ state }) => (state.opens === 1 ? 1 : 0) },
    {
      name: 'key',
      weight: 0.75,
      score: ({ state, example, trajectory }) => (state.opens === 1 && (trajectory.answer ?? '').trim() === String(example.answer) ? 1 : 0),
    },
  ],
  systemPrompt: 'Open the box, then answer with its key.',
  maxTurns: 3,
});
