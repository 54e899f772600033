/** Which wiki backend a process opens: a prebuilt disk index by path, large corpora on disk in the cache (built once), small ones in memory. */
import { appendFileSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWikiIndex } from '../../../src/cli/commands/wiki-index-loading.js';
import { corpusSourceFromPath } from '../../../src/wiki-search/corpus-sources.js';
import { buildDiskIndex } from '../../../src/wiki-search/disk/disk-index-builder.js';
import { DiskWikiIndex } from '../../../src/wiki-search/disk/disk-wiki-index.js';
import { WikiIndex } from '../../../src/wiki-search/wiki-index.js';

const fixtures = resolve(import.meta.dirname, '../../fixtures/wiki');
let directory: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'corral-wiki-loading-'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('loadWikiIndex backend choice', () => {
  it('keeps a small corpus in memory', async () => {
    const index = await loadWikiIndex({ corpusPaths: [join(fixtures, 'pages.jsonl')], cacheDir: join(directory, 'cache-small'), log: () => undefined });
    expect(index).toBeInstanceOf(WikiIndex);
  });

  it('opens a prebuilt disk index named by --corpus, and refuses to combine it with another corpus', async () => {
    const out = join(directory, 'prebuilt');
    await buildDiskIndex({ sources: [await corpusSourceFromPath(join(fixtures, 'pages.jsonl'))], outDir: out });
    const index = await loadWikiIndex({ corpusPaths: [out], log: () => undefined });
    expect(index).toBeInstanceOf(DiskWikiIndex);
    expect(index?.pageCount).toBe(5);
    (index as DiskWikiIndex).close();
    await expect(loadWikiIndex({ corpusPaths: [out, join(fixtures, 'pages.jsonl')], log: () => undefined })).rejects.toMatchObject({
      code: 'WIKI_ERR_CORPUS_INVALID',
    });
  });

  it('indexes a corpus above the threshold on disk in the cache once, and again when its file changes', async () => {
    const corpus = join(directory, 'large.jsonl');
    copyFileSync(join(fixtures, 'pages.jsonl'), corpus);
    const lines: string[] = [];
    const options = { corpusPaths: [corpus], cacheDir: join(directory, 'cache-large'), diskThresholdBytes: 1, log: (line: string) => lines.push(line) };
    const first = await loadWikiIndex(options);
    expect(first).toBeInstanceOf(DiskWikiIndex);
    (first as DiskWikiIndex).close();
    const builds = () => lines.filter((line) => line.startsWith('wiki index: building')).length;
    expect(builds()).toBe(1);
    const second = await loadWikiIndex(options);
    expect(builds()).toBe(1);
    (second as DiskWikiIndex).close();
    appendFileSync(corpus, `${JSON.stringify({ id: 'added_page', title: 'Added page', content: '# Added page\n\nA page added after the first build.' })}\n`);
    const third = await loadWikiIndex(options);
    expect(builds()).toBe(2);
    expect(third?.pageCount).toBe(6);
    expect(await third?.viewSections('added_page')).not.toBeNull();
    (third as DiskWikiIndex).close();
  });

  it('two openings of one large corpus at once build its disk index once: the second waits for the lock (a directory on disk, shared by processes), then opens it', async () => {
    const corpus = join(directory, 'shared-large.jsonl');
    const pages = Array.from({ length: 3_000 }, (_, index) => ({
      id: `page_${index}`,
      title: `Page ${index}`,
      content: `# Page ${index}\n\nParagraph ${index} about rivers, otters and lighthouse number ${index * 7}.\n\nA second paragraph.`,
    }));
    writeFileSync(corpus, `${pages.map((page) => JSON.stringify(page)).join('\n')}\n`);
    const lines: string[] = [];
    const options = { corpusPaths: [corpus], cacheDir: join(directory, 'cache-shared'), diskThresholdBytes: 1, log: (line: string) => lines.push(line) };
    const [first, second] = await Promise.all([loadWikiIndex(options), loadWikiIndex(options)]);
    try {
      expect(first).toBeInstanceOf(DiskWikiIndex);
      expect(second).toBeInstanceOf(DiskWikiIndex);
      expect(first?.pageCount).toBe(3_000);
      expect(second?.pageCount).toBe(3_000);
      expect(lines.filter((line) => line.startsWith('wiki index: building'))).toHaveLength(1);
      expect(lines.some((line) => line.startsWith('waiting for another wiki index build'))).toBe(true);
      expect(await second?.search('lighthouse number 20993', { limit: 1 })).toEqual(await first?.search('lighthouse number 20993', { limit: 1 }));
      expect((await first?.search('lighthouse number 20993', { limit: 1 }))?.[0]?.page_id).toBe('page_2999');
    } finally {
      (first as DiskWikiIndex | undefined)?.close();
      (second as DiskWikiIndex | undefined)?.close();
    }
  });
});
