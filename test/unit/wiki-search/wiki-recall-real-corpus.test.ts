import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { dataDirectoryWith } from '../../helpers/test-gates.js';
import { discoverCorpusSources, loadCorpora } from '../../../src/wiki-search/corpus-sources.js';
import { loadRecallQuestions, measureRecall } from '../../../benchmarks/recall.js';
import { TitleOnlyMatcher } from '../../../benchmarks/title-only-matcher.js';
import { WikiIndex } from '../../../src/wiki-search/wiki-index.js';

// The real corpus is read from CORRAL_DATA_DIR (CI sets it): skipped loudly on a laptop without it, a failure under CI=true.
const dataDir = dataDirectoryWith(['wiki', 'qa/squad-v1.1-dev/dev.jsonl']);

describe.runIf(Boolean(dataDir))('wiki search on the real corpus (CORRAL_DATA_DIR)', () => {
  let index: WikiIndex;
  let titles: TitleOnlyMatcher;

  beforeAll(async () => {
    const pages = await loadCorpora(await discoverCorpusSources(dataDir ?? ''));
    index = WikiIndex.build(pages);
    titles = TitleOnlyMatcher.build(pages);
  });

  it('indexes all three wiki folders (629 pages)', () => {
    expect(index.pageCount).toBe(629);
  });

  it('finds the answer page in the top 10 for at least 90% of the first 200 dev questions', async () => {
    const questions = await loadRecallQuestions(join(dataDir ?? '', 'qa/squad-v1.1-dev/dev.jsonl'), 200);
    expect(questions).toHaveLength(200);
    const report = measureRecall((query, limit) => index.search(query, { limit }).map((hit) => hit.page_id), questions);
    const baseline = measureRecall((query, limit) => titles.search(query, limit), questions);
    expect(report.recallAt10).toBeGreaterThanOrEqual(0.9);
    expect(report.recallAt10).toBeGreaterThan(baseline.recallAt10);
  });
});
