/**
 * How the wiki baseline reads a page without copying all of it: view_sections, then the sections in page
 * order, a batch per turn, until the one holding the page's search snippet has been read (search_pages shows
 * the best-ranked passage of each page, so that section is where the search engine found the question's
 * words). The last unread section is never read: when every other one was read without the snippet, the
 * snippet is in it, and the snippet is already in hand. So a page with several sections never lands in the
 * trajectory whole; on the dev split this beats reading the top pages whole (exact match 0.2938 against
 * 0.2918) with 9.5 section reads a rollout instead of 28 (records 33 KB instead of 90 KB; docs/runner.md).
 */
import type { PageResult } from './baseline-wiki-results.js';
import { sectionEntries, sectionText } from './baseline-wiki-results.js';
import { holdsSnippet, snippetKey } from './baseline-snippet-locator.js';
import type { ToolSteps } from './baseline-tool-steps.js';

export interface SectionScan {
  /** Texts of the sections read, in page order. */
  texts: string[];
  /** Whether one of them holds the page's snippet (false when the page has no snippet). */
  located: boolean;
}

/** Needs at least two steps left (one for view_sections, one for reading). */
export async function readTowardSnippet(steps: ToolSteps, page: PageResult, maxReads: number): Promise<SectionScan> {
  const [listing] = await steps.step([{ name: 'view_sections', args: { page_id: page.pageId } }]);
  const sections = sectionEntries(listing!);
  const unread = sections.length > 0 ? sections.map((section) => section.sectionId) : [`${page.pageId}:full`];
  const key = snippetKey(page.snippet);
  const scan: SectionScan = { texts: [], located: false };
  let readsLeft = maxReads;
  while (!scan.located && steps.stepsLeft > 0 && readsLeft > 0 && unread.length > (scan.texts.length > 0 ? 1 : 0)) {
    // Batches sized so that the page is covered within the turns left, one section a turn when they suffice.
    const readable = unread.length > 1 ? unread.length - 1 : 1;
    const size = Math.min(readsLeft, readable, Math.ceil(readable / steps.stepsLeft));
    const batch = unread.splice(0, size);
    readsLeft -= batch.length;
    const outcomes = await steps.step(batch.map((sectionId) => ({ name: 'read_section', args: { section_id: sectionId } })));
    for (const outcome of outcomes) {
      const text = sectionText(outcome);
      scan.texts.push(text);
      // A page without a snippet gives nothing to look for: its first batch is all it gets.
      if (key === undefined || holdsSnippet(text, key)) scan.located = true;
    }
  }
  return scan;
}
