/** The checks that read no rollout: leakage matching and its thresholds, example ids, limits, the oracle choice. */
import { describe, expect, it } from 'vitest';
import { chooseOracleName, referenceAnswerText } from '../../../src/environment-check/check-agents.js';
import { checkExampleIds, checkTimeouts } from '../../../src/environment-check/hygiene-checks.js';
import { checkLeakage } from '../../../src/environment-check/leakage-checks.js';
import { defineEnvironment, type Example } from '../../../src/runner/contract/environment.js';

const example = (id: string, prompt: string, answer: unknown): Example => ({ id, prompt, answer });
const leakageOf = (examples: Example[], systemPrompt = 'Answer briefly.') =>
  checkLeakage(examples, systemPrompt, [{ name: 'search', description: 'Search the atlas.', inputSchema: { type: 'object' } }]);

describe('leakage checks', () => {
  it('matches the answer as whole words, ignoring case and spacing, not inside a longer word', () => {
    const [prompt] = leakageOf([
      example('a', 'Which animal purrs? Not the category  of DOG.', 'cat'),
      example('b', 'Name the  New   York borough.', 'new york'),
    ]);
    expect(prompt!.evidence).toMatchObject({ judged: 2, leak_count: 1, leaks: [{ example: 'b', answer: 'new york' }] });
  });

  it('is a warning for an occasional hit and an error when half the examples or more leak', () => {
    const few = [example('a', 'Is it Paris?', 'Paris'), example('b', 'Capital of Japan?', 'Tokyo'), example('c', 'Capital of Peru?', 'Lima')];
    expect(leakageOf(few)[0]).toMatchObject({ id: 'leakage.prompt', passed: false, severity: 'warning' });
    const many = [...few.slice(0, 2), example('c', 'Is it Lima?', 'Lima')];
    expect(leakageOf(many)[0]).toMatchObject({ id: 'leakage.prompt', passed: false, severity: 'error' });
  });

  it('does not judge answers shorter than three characters, and reads every gold answer of a list', () => {
    const [prompt] = leakageOf([example('a', 'What is 2 + 2? 4', '4'), example('b', 'Spell it: colour', ['color', 'colour'])]);
    expect(prompt!.evidence).toMatchObject({ judged: 1, leak_count: 1 });
  });

  it('finds an answer in the system prompt and in the tool descriptions', () => {
    const checks = checkLeakage([example('a', 'Capital of France?', 'Paris')], 'The answer is Paris.', [
      { name: 'atlas', description: 'Knows that France has Paris.', inputSchema: { type: 'object' } },
    ]);
    expect(checks.map((check) => `${check.id}:${check.severity}`)).toEqual([
      'leakage.prompt:info',
      'leakage.system-prompt:error',
      'leakage.tool-descriptions:error',
    ]);
  });
});

describe('hygiene checks', () => {
  it('refuses ids that change on a second load of the dataset', () => {
    const first = [example('a', 'x', 'y'), example('b', 'x', 'y')];
    const second = [example('a', 'x', 'y'), example('b-2', 'x', 'y')];
    expect(checkExampleIds(first, second)).toMatchObject({ id: 'hygiene.example-ids', severity: 'error', evidence: { unstable: ['b'] } });
    expect(checkExampleIds(first, first)).toMatchObject({ passed: true, severity: 'info' });
  });

  it('warns when a tool call may outlive its rollout', () => {
    const environment = defineEnvironment({
      name: 'slow-tools',
      dataset: () => [],
      rubric: [{ name: 'one', weight: 1, score: () => 1 }],
      systemPrompt: '',
      limits: { toolTimeoutMs: 120_000, rolloutTimeoutMs: 60_000 },
    });
    expect(checkTimeouts(environment)).toMatchObject({ id: 'hygiene.timeouts', passed: false, severity: 'warning' });
  });
});

describe('the oracle choice', () => {
  it('prefers --oracle, then the module’s conventional names in order, then a fitting built-in oracle, else the reference answers', () => {
    expect(chooseOracleName('mine', ['reference'], true)).toBe('mine');
    expect(chooseOracleName(undefined, ['guess', 'solver', 'reference'], true)).toBe('reference');
    expect(chooseOracleName(undefined, ['guess'], true)).toBe('oracle');
    expect(chooseOracleName(undefined, ['guess'], false)).toBeNull();
  });

  it('answers a list’s first text answer and a number as text, and nothing for an object', () => {
    expect(referenceAnswerText(example('a', 'q', ['Paris', 'paris']))).toBe('Paris');
    expect(referenceAnswerText(example('a', 'q', 42))).toBe('42');
    expect(referenceAnswerText(example('a', 'q', { tests: [] }))).toBeNull();
  });
});
