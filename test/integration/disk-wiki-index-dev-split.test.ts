/**
 * Ranking parity of the disk index on the dev split (qa/squad-v1.1-dev/dev.jsonl over the 629 evaluation pages):
 * recall@10 stays at or above 0.99 and the ranked page ids match the in-memory index's for nearly every question.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecallQuestions, measureRecall, type RecallQuestion } from '../../benchmarks/recall.js';
import { discoverCorpusSources, loadCorpora } from '../../src/wiki-search/corpus-sources.js';
import { buildDiskIndex } from '../../src/wiki-search/disk/disk-index-builder.js';
import { DiskWikiIndex } from '../../src/wiki-search/disk/disk-wiki-index.js';
import { WikiIndex } from '../../src/wiki-search/wiki-index.js';
import { dataDirectoryWith } from '../helpers/test-gates.js';

const dataDir = dataDirectoryWith(['wiki', 'qa/squad-v1.1-dev/dev.jsonl']);

describe.runIf(Boolean(dataDir))('disk index on the dev split (CORRAL_DATA_DIR)', () => {
  let directory: string;
  let disk: DiskWikiIndex;
  let memory: WikiIndex;
  let questions: RecallQuestion[];

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'corral-disk-dev-'));
    const sources = await discoverCorpusSources(dataDir ?? '');
    await buildDiskIndex({ sources, outDir: directory });
    disk = await DiskWikiIndex.open(directory);
    memory = WikiIndex.build(await loadCorpora(sources));
    questions = await loadRecallQuestions(join(dataDir ?? '', 'qa/squad-v1.1-dev/dev.jsonl'));
  });
  afterAll(() => {
    disk.close();
    rmSync(directory, { recursive: true, force: true });
  });

  // Candidates are FTS5's best 100 passages, so a page the in-memory index ranks 8th-10th is sometimes missed or
  // swapped (the top 10 match for 98% of the questions); the top 5 match for over 99%. The comparison runs on the first
  // 500 questions, to keep the file within seconds on a busy machine.
  it('keeps recall@10 at or above 0.99 and the top 5 pages of the in-memory index for at least 99% of the questions', { timeout: 180_000 }, () => {
    expect(disk.pageCount).toBe(629);
    const ranked = new Map<string, string[]>();
    const report = measureRecall((query, limit) => {
      const ids = disk.search(query, { limit }).map((hit) => hit.page_id);
      ranked.set(query, ids);
      return ids;
    }, questions);
    expect(report.questionCount).toBe(2454);
    expect(report.recallAt10).toBeGreaterThanOrEqual(0.99);
    const topFive = (ids: readonly string[] | undefined) => JSON.stringify(ids?.slice(0, 5));
    const compared = questions.slice(0, 500);
    const same = compared.filter((question) => topFive(ranked.get(question.question)) === topFive(memory.search(question.question).map((hit) => hit.page_id)));
    expect(same.length / compared.length).toBeGreaterThanOrEqual(0.99);
  });
});
