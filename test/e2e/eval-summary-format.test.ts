/**
 * The summary `corral eval` prints at the end, through the real CLI: a rubric function named `reward` (a terminal
 * verifier's) does not print the mean reward a second time, and a metric whose mean is a whole number (a count)
 * prints as one (9, not 9.0000).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCorral } from './runner-cli.js';

const folder = mkdtempSync(join(tmpdir(), 'corral-eval-summary-'));

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('corral eval summary', () => {
  it('prints the mean reward once and whole-number means without decimals', async () => {
    const module = join(folder, 'verifier-like.ts');
    writeFileSync(
      module,
      `import { ScriptedAgent, defineEnvironment } from 'corral';
export default defineEnvironment({
  name: 'verifier-like',
  description: 'a verifier-style rubric',
  systemPrompt: 'answer yes or no',
  dataset: () => [{ id: 'a', prompt: 'go', answer: 'yes' }, { id: 'b', prompt: 'go', answer: 'no' }, { id: 'c', prompt: 'go', answer: 'yes' }],
  rubric: [
    { name: 'reward', weight: 1, score: ({ example, trajectory }) => (trajectory.answer === example.answer ? 1 : 0) },
    { name: 'steps', weight: 0, score: () => 9 },
    { name: 'share', weight: 0, score: ({ example }) => (example.id === 'a' ? 1 : 0) },
  ],
});
export const agents = { yes: () => new ScriptedAgent(() => [{ answer: 'yes' }]) };
`,
    );
    const result = await runCorral(['eval', module, '--agent', 'yes', '--out', join(folder, 'run'), '--no-progress']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.filter((line) => /^mean reward\s/.test(line))).toEqual([expect.stringMatching(/^mean reward\s+0\.6667$/)]);
    expect(lines).toContainEqual(expect.stringMatching(/^mean steps\s+9$/));
    expect(lines).toContainEqual(expect.stringMatching(/^mean share\s+0\.3333$/));
  }, 180_000);
});
