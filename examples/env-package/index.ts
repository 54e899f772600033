/**
 * corral-env-vault: an environment shipped as an npm package (`corral env install ./corral-env-vault-1.0.0.tgz`,
 * then `corral eval corral-env-vault`). It shows what a package needs: a package.json whose "corral" field names
 * this module, and imports from 'corral' alone (no install of corral or zod: the running corral provides both).
 *
 * - argsSchema: `--env-args '{"words": 5, "prefix": "opal"}'` picks how many examples and their secret words;
 * - setup: writes the example's secret word into the rollout's sandbox (vault/secret.txt) before the first turn;
 * - unlock: the environment's own tool; it reads the sandbox file and counts attempts in the per-rollout state;
 * - the rubric rewards an unlocked vault and records the attempts (weight 0).
 */
import { defineEnvironment, defineTool, z, type ToolContext } from 'corral';

export { agents } from './agents.js';

const argsSchema = z
  .object({
    words: z.number().int().min(1).max(50).default(3).describe('how many examples (vaults) the dataset gives'),
    prefix: z
      .string()
      .regex(/^[a-z]+$/)
      .default('amber')
      .describe('the secret words are <prefix>-<index>'),
  })
  .strict();
type VaultArgs = z.output<typeof argsSchema>;

interface VaultState {
  attempts: number;
  unlocked: boolean;
}

const SECRET_PATH = 'vault/secret.txt';

const unlock = defineTool({
  name: 'unlock',
  description: 'Try to open the vault with a word. Returns "unlocked" when the word is the secret, else "wrong word".',
  inputSchema: z.object({ word: z.string().min(1).describe('the word to try') }),
  annotations: { readOnlyHint: false, idempotentHint: false },
  // The context's type names the environment's State; defineEnvironment refuses this tool for another state type.
  async execute({ word }, { state: vault, sandbox }: ToolContext<VaultState, VaultArgs>) {
    vault.attempts += 1;
    const secret = await sandbox.files.read({ path: SECRET_PATH });
    if (secret === null) return { text: 'the vault has no secret (setup did not run?)', isError: true };
    vault.unlocked = word.trim() === secret.content.trim();
    return vault.unlocked ? 'unlocked' : 'wrong word';
  },
});

export default defineEnvironment({
  name: 'vault',
  description: 'Find the secret word in the sandbox and open the vault with the unlock tool.',
  toolsets: ['files'],
  tools: [unlock],
  argsSchema,
  systemPrompt: `A secret word is written in the file ${SECRET_PATH} of your workspace. Read it, then call unlock with it.`,
  dataset: ({ envArgs }) => {
    const { words, prefix } = envArgs;
    return Array.from({ length: words }, (_, index) => ({ id: `vault-${index}`, prompt: 'Open the vault.', answer: `${prefix}-${index}` }));
  },
  state: (): VaultState => ({ attempts: 0, unlocked: false }),
  async setup({ example, sandbox }) {
    await sandbox.files.write({ path: SECRET_PATH, content: `${String(example.answer)}\n`, createParents: true });
  },
  rubric: [
    { name: 'unlocked', weight: 1, score: ({ state }) => (state.unlocked ? 1 : 0) },
    { name: 'attempts', weight: 0, score: ({ state }) => state.attempts },
  ],
  maxTurns: 4,
});
