/**
 * Recall of page search on a question set: for each question, is the page that holds the answer
 * among the first k results? Questions come from JSONL files whose gold page is `page_id` (SQuAD:
 * one page) or `page_ids` (HotpotQA: usually two). With several gold pages a question scores the
 * share of them found, so recall@k stays a number between 0 and 1 per question.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { CorralError } from '../src/core/errors.js';
import { assertFileExists } from '../src/wiki-search/jsonl-corpus-loader.js';

export interface RecallQuestion {
  readonly id: string;
  readonly question: string;
  readonly goldPageIds: readonly string[];
}

export interface RecallReport {
  readonly questionCount: number;
  readonly recallAt1: number;
  readonly recallAt5: number;
  readonly recallAt10: number;
  /** Gold page ids the searcher never returned in the top 10, with how often. */
  readonly missedPages: ReadonlyMap<string, number>;
}

/** Ranked page ids for a query (at least `limit` long when that many pages match). */
export type PageSearcher = (query: string, limit: number) => readonly string[];

function goldPagesOf(record: Record<string, unknown>): string[] | null {
  if (typeof record.page_id === 'string') return [record.page_id];
  if (Array.isArray(record.page_ids) && record.page_ids.every((id) => typeof id === 'string')) return record.page_ids as string[];
  return null;
}

/** Read questions (`question` plus `page_id` or `page_ids`); `limit` keeps only the first ones. */
export async function loadRecallQuestions(path: string, limit = Infinity): Promise<RecallQuestion[]> {
  await assertFileExists(path);
  const questions: RecallQuestion[] = [];
  let lineNumber = 0;
  for await (const line of createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity })) {
    lineNumber += 1;
    if (questions.length >= limit) break;
    if (line.trim() === '') continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch (error) {
      throw new CorralError('WIKI_ERR_CORPUS_INVALID', `${path}:${lineNumber}: not valid JSON`, { cause: error, details: { path, lineNumber } });
    }
    const goldPageIds = goldPagesOf(record);
    if (typeof record.question !== 'string' || goldPageIds === null) {
      throw new CorralError('WIKI_ERR_CORPUS_INVALID', `${path}:${lineNumber}: needs "question" and "page_id" or "page_ids"`, {
        details: { path, lineNumber },
      });
    }
    questions.push({ id: String(record.id ?? lineNumber), question: record.question, goldPageIds });
  }
  return questions;
}

export function measureRecall(search: PageSearcher, questions: readonly RecallQuestion[]): RecallReport {
  const totals = { 1: 0, 5: 0, 10: 0 };
  const missedPages = new Map<string, number>();
  for (const question of questions) {
    const ranked = search(question.question, 10);
    for (const k of [1, 5, 10] as const) {
      const top = ranked.slice(0, k);
      totals[k] += question.goldPageIds.filter((id) => top.includes(id)).length / Math.max(1, question.goldPageIds.length);
    }
    for (const id of question.goldPageIds) if (!ranked.includes(id)) missedPages.set(id, (missedPages.get(id) ?? 0) + 1);
  }
  const count = Math.max(1, questions.length);
  return { questionCount: questions.length, recallAt1: totals[1] / count, recallAt5: totals[5] / count, recallAt10: totals[10] / count, missedPages };
}
