/**
 * What the wiki tools need from a search index: the three WikiSearch operations. Structural, so the
 * shared WikiIndex (src/tools/wiki) satisfies it and tests can pass a small fake. Methods may be
 * synchronous or asynchronous; "not found" is null, never a throw.
 */
import type { PageHit, SectionListing } from '../../wiki-search/wiki-page.js';

export type MaybePromise<T> = T | Promise<T>;

export interface WikiLookup {
  search(query: string, options: { limit: number }): MaybePromise<readonly PageHit[]>;
  viewSections(pageId: string): MaybePromise<readonly SectionListing[] | null>;
  readSection(sectionId: string): MaybePromise<string | null>;
}
