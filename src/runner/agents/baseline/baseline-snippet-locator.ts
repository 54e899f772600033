/**
 * Tells whether a section read holds the passage a search result's snippet was cut from. search_pages ranks
 * passages and shows the best one's opening words as the page's snippet, so the section holding the snippet is
 * the one the search engine found most relevant: the baseline reads sections until it reaches it, instead of
 * reading whole pages. Both sides are compared as the snippet is made: heading lines dropped, whitespace
 * collapsed, the trailing ellipsis of a cut snippet removed.
 */

/** Enough of the snippet to identify its passage, short enough to survive the snippet's cut at a word. */
const MATCHED_PREFIX_CHARS = 80;

function prose(text: string): string {
  return text
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The part of a snippet to look for, or undefined when the snippet is empty. */
export function snippetKey(snippet: string): string | undefined {
  const key = prose(snippet.replace(/…\s*$/, '')).slice(0, MATCHED_PREFIX_CHARS).trim();
  return key === '' ? undefined : key;
}

export function holdsSnippet(sectionText: string, key: string): boolean {
  return prose(sectionText).includes(key);
}
