/**
 * The comparison baseline: rank pages by their title alone, the way the original WikiSearch
 * environment indexes (it embeds only titles). Same analyser and library as the real index, so the
 * difference measured is what the page text adds, not a difference in tokenisation.
 */
import MiniSearch from 'minisearch';
import { termsOf } from '../src/text/terms.js';
import type { WikiPage } from '../src/wiki-search/wiki-page.js';

interface TitleDocument {
  readonly id: number;
  readonly terms: string;
}

export class TitleOnlyMatcher {
  private constructor(
    private readonly pageIds: readonly string[],
    private readonly engine: MiniSearch<TitleDocument>,
  ) {}

  static build(pages: readonly WikiPage[]): TitleOnlyMatcher {
    const engine = new MiniSearch<TitleDocument>({
      fields: ['terms'],
      tokenize: (text) => text.split(' '),
      processTerm: (term) => (term === '' ? null : term),
    });
    engine.addAll(pages.map((page, index) => ({ id: index, terms: termsOf(page.title).join(' ') })));
    return new TitleOnlyMatcher(
      pages.map((page) => page.id),
      engine,
    );
  }

  /** Page ids, best first. */
  search(query: string, limit = 10): string[] {
    const terms = [...new Set(termsOf(query))];
    if (terms.length === 0) return [];
    return this.engine
      .search(terms.join(' '))
      .slice(0, limit)
      .map((result) => this.pageIds[result.id as number] ?? '');
  }
}
