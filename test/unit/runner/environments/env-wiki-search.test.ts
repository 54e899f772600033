import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDirectoryWith } from '../../../helpers/test-gates.js';
import { CorralError } from '../../../../src/core/errors.js';
import { createWikiSearchEnvironment, defaultCorpusPaths, resolveCorpusPaths } from '../../../../src/runner/environments/index.js';
import { loadQuestions, questionDataset } from '../../../../src/runner/environments/wiki-search/question-dataset.js';

const fixtures = new URL('../../../fixtures/runner/', import.meta.url).pathname;
const dataDir = dataDirectoryWith(['wiki/squad-v1.1-dev/pages.jsonl', 'qa/squad-v1.1-dev/dev.jsonl']);

describe('wiki-search questions', () => {
  it('reads question, answer, answers and page_id; the answer list defaults to the answer', () => {
    const questions = loadQuestions(`${fixtures}tiny-questions.jsonl`);
    expect(questions[0]).toEqual({
      id: 'q1',
      prompt: 'Who opened the Marrow Valley Railway?',
      answer: 'Harriet Lowell',
      info: { answers: ['Harriet Lowell', 'the engineer Harriet Lowell'], page_id: 'marrow_valley_railway' },
    });
    expect(questions[2]!.info!.answers).toEqual(['1962']);
  });

  it('needs an answer and says where one is missing', () => {
    const directory = mkdtempSync(join(tmpdir(), 'corral-questions-'));
    writeFileSync(join(directory, 'q.jsonl'), '{"question": "Why?"}\n');
    expect(() => loadQuestions(join(directory, 'q.jsonl'))).toThrow(/q\.jsonl:1: needs "answer"/);
  });

  it('takes --questions, else the dev split under the data directory', () => {
    expect(questionDataset({ args: { questions: `${fixtures}tiny-questions.jsonl` }, dataDir: undefined })).toHaveLength(5);
    const directory = mkdtempSync(join(tmpdir(), 'corral-data-'));
    mkdirSync(join(directory, 'qa/squad-v1.1-dev'), { recursive: true });
    writeFileSync(join(directory, 'qa/squad-v1.1-dev/dev.jsonl'), '{"question": "Q?", "answer": "A"}\n');
    expect(questionDataset({ args: {}, dataDir: directory })).toEqual([{ id: 'line-1', prompt: 'Q?', answer: 'A', info: { answers: ['A'] } }]);
    const error = (() => {
      try {
        questionDataset({ args: { questions: join(directory, 'missing.jsonl') }, dataDir: directory });
      } catch (caught) {
        return caught;
      }
    })();
    expect(CorralError.hasCode(error, 'ENV_ERR_DATASET_NOT_FOUND')).toBe(true);
    expect((error as Error).message).toContain('--questions');
  });
});

describe('wiki-search corpus paths', () => {
  it('lists every wiki/*/pages.jsonl under the data directory, and --corpus wins', () => {
    const directory = mkdtempSync(join(tmpdir(), 'corral-data-'));
    for (const name of ['b-corpus', 'a-corpus', 'empty-folder']) mkdirSync(join(directory, 'wiki', name), { recursive: true });
    writeFileSync(join(directory, 'wiki/a-corpus/pages.jsonl'), '');
    writeFileSync(join(directory, 'wiki/b-corpus/pages.jsonl'), '');
    expect(defaultCorpusPaths(directory)).toEqual([join(directory, 'wiki/a-corpus/pages.jsonl'), join(directory, 'wiki/b-corpus/pages.jsonl')]);
    expect(resolveCorpusPaths({ args: {}, dataDir: directory })).toHaveLength(2);
    expect(resolveCorpusPaths({ args: { corpus: ['x.jsonl', 'y.jsonl'] }, dataDir: directory })).toEqual([resolve('x.jsonl'), resolve('y.jsonl')]);
    expect(defaultCorpusPaths('/nonexistent-data')).toEqual([]);
  });
});

describe('wiki-search environment', () => {
  it('uses the wiki tools, rewards exact match, records F1, tool calls and turns, and carries the corpus', () => {
    const environment = createWikiSearchEnvironment({ corpus: ['/data/pages.jsonl'] });
    expect(environment.name).toBe('wiki-search');
    expect(environment.toolsets).toEqual(['wiki']);
    expect(environment.rubric.map((item) => [item.name, item.weight])).toEqual([
      ['exact_match', 1],
      ['f1', 0],
      ['tool_calls', 0],
      ['turns', 0],
    ]);
    expect(environment.options.corpus).toEqual(['/data/pages.jsonl']);
    expect(environment.systemPrompt).toMatch(/search_pages/);
    expect(environment.systemPrompt).toMatch(/shortest span/);
  });

  it.skipIf(!dataDir)("defaults the corpus to the data directory's wiki folders", () => {
    const corpus = createWikiSearchEnvironment().options.corpus as string[];
    expect(corpus.length).toBeGreaterThanOrEqual(3);
    expect(corpus.some((path) => path.endsWith('wiki/squad-v1.1-dev/pages.jsonl'))).toBe(true);
    expect(questionDataset({ args: {}, dataDir })).toHaveLength(2454);
  });
});
