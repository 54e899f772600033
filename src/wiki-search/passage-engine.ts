/**
 * The MiniSearch configuration behind the index, in one place because a saved index can only be
 * loaded with the options it was built with. Passages are indexed as one field of pre-analysed
 * terms (see src/text/terms.ts): the page title's terms, repeated `titleWeight` times, then the passage
 * text's terms. Repeating title terms is BM25F field weighting (a weighted term count inside one
 * length-normalised field), which measured better on the dev split than MiniSearch's separate title
 * field with a boost, where a 2–3 word title field gets outsized scores (README.md has the numbers).
 */
import MiniSearch from 'minisearch';

interface EngineDocument {
  readonly id: number;
  readonly terms: string;
}

export type PassageEngine = MiniSearch<EngineDocument>;

export interface PassageScore {
  readonly passageNumber: number;
  readonly score: number;
}

const ENGINE_OPTIONS = {
  fields: ['terms'],
  idField: 'id',
  // Text reaching MiniSearch is already analysed: terms joined by single spaces.
  tokenize: (text: string) => text.split(' '),
  processTerm: (term: string) => (term === '' ? null : term),
  // Plain BM25 (d = 0 turns MiniSearch's BM25+ lower bound off), Robertson's usual k1 and b.
  searchOptions: { bm25: { k: 1.2, b: 0.75, d: 0 } },
};

export function createPassageEngine(): PassageEngine {
  return new MiniSearch<EngineDocument>(ENGINE_OPTIONS);
}

export function loadPassageEngine(json: string): PassageEngine {
  return MiniSearch.loadJSON<EngineDocument>(json, ENGINE_OPTIONS);
}

export function addPassage(
  engine: PassageEngine,
  passageNumber: number,
  titleTerms: readonly string[],
  titleWeight: number,
  textTerms: readonly string[],
): void {
  const weighted: string[] = [];
  for (let repeat = 0; repeat < titleWeight; repeat += 1) weighted.push(...titleTerms);
  weighted.push(...textTerms);
  engine.add({ id: passageNumber, terms: weighted.join(' ') });
}

/**
 * BM25 score of every passage that contains at least one of `queryTerms` (distinct, analysed).
 * MiniSearch multiplies each score by the number of query terms matched; we divide that back out, since
 * the plain BM25 sum ranked better on the dev split (the coordination bonus favours long passages
 * that happen to hold many common words).
 */
export function scorePassages(engine: PassageEngine, queryTerms: readonly string[]): PassageScore[] {
  if (queryTerms.length === 0) return [];
  return engine.search(queryTerms.join(' ')).map((result) => ({
    passageNumber: result.id as number,
    score: result.score / Math.max(1, result.queryTerms.length),
  }));
}
