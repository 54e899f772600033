import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusSourceFromPath, loadCorpora } from '../../../src/wiki-search/corpus-sources.js';
import { type DiskIndexBuildProgress, buildDiskIndex } from '../../../src/wiki-search/disk/disk-index-builder.js';
import { DiskWikiIndex } from '../../../src/wiki-search/disk/disk-wiki-index.js';
import { loadPagesJsonl } from '../../../src/wiki-search/jsonl-corpus-loader.js';
import { WikiIndex } from '../../../src/wiki-search/wiki-index.js';

// Rows shaped as WikiExtractor's --json output and Hugging Face's wikimedia/wikipedia export: {id, url, title, text},
// plain text with a paragraph a line (WikiExtractor) or blank lines between paragraphs (Hugging Face).
const rows = [
  {
    id: '12',
    revid: '1',
    url: 'https://en.wikipedia.org/wiki?curid=12',
    title: 'Anarchism',
    text: 'Anarchism is a political philosophy and movement.\nHumans lived in societies without formal hierarchies long before states.\nThe term anarchism first appeared in English in 1642.',
  },
  {
    id: 25,
    url: 'https://en.wikipedia.org/wiki?curid=25',
    title: 'Autism',
    text: 'Autism is a neurodevelopmental condition.\n\nSigns often appear in early childhood and are lifelong.',
  },
  {
    id: '39',
    url: 'https://en.wikipedia.org/wiki?curid=39',
    title: 'Albedo',
    text: 'Albedo is the fraction of sunlight that is diffusely reflected by a body.',
  },
];
let directory: string;
let gzipped: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'corral-wikipedia-export-'));
  gzipped = join(directory, 'enwiki-extract.jsonl.gz');
  writeFileSync(gzipped, gzipSync(rows.map((row) => JSON.stringify(row)).join('\n') + '\n'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('a Wikipedia export as a corpus', () => {
  it('reads gzip-compressed {id, title, text} rows: integer ids as strings, each text line a paragraph', async () => {
    const pages = await loadPagesJsonl(gzipped);
    expect(pages.map((page) => [page.id, page.title])).toEqual([
      ['12', 'Anarchism'],
      ['25', 'Autism'],
      ['39', 'Albedo'],
    ]);
    expect(pages[0]?.content).toBe(
      'Anarchism is a political philosophy and movement.\n\nHumans lived in societies without formal hierarchies long before states.\n\nThe term anarchism first appeared in English in 1642.',
    );
    expect(pages[1]?.content).toBe('Autism is a neurodevelopmental condition.\n\nSigns often appear in early childhood and are lifelong.');
  });

  it('indexes it on disk with progress in compressed bytes, and answers as the in-memory index does', async () => {
    const source = await corpusSourceFromPath(gzipped);
    const progress: DiskIndexBuildProgress[] = [];
    await buildDiskIndex({ sources: [source], outDir: join(directory, 'index'), onProgress: (step) => progress.push(step) });
    const fileBytes = gzipSync(rows.map((row) => JSON.stringify(row)).join('\n') + '\n').length;
    expect(progress.at(-1)).toMatchObject({ pages: 3, bytesDone: fileBytes, bytesTotal: fileBytes, phase: 'finishing' });
    for (const step of progress) expect(step.bytesDone).toBeLessThanOrEqual(step.bytesTotal);
    const memory = WikiIndex.build(await loadCorpora([source]));
    const disk = await DiskWikiIndex.open(join(directory, 'index'));
    try {
      for (const query of ['when did the word anarchism appear in English', 'sunlight reflected', 'childhood signs']) {
        expect(disk.search(query), query).toEqual(memory.search(query));
      }
      expect(disk.search('when did the word anarchism appear in English')[0]?.page_id).toBe('12');
      // Each line of WikiExtractor's text is its own paragraph, so the best passage is the sentence about 1642.
      expect(disk.search('when did the word anarchism appear in English')[0]?.snippet).toContain('1642');
      expect(disk.readSection('25:full')).toContain('Signs often appear');
    } finally {
      disk.close();
    }
  });

  it('a corrupt gzip file, a bzip2 file and a row with neither content nor text are WIKI_ERR_CORPUS_INVALID, naming the file', async () => {
    const corrupt = join(directory, 'corrupt.jsonl.gz');
    const whole = gzipSync(rows.map((row) => JSON.stringify(row)).join('\n'));
    writeFileSync(corrupt, Buffer.concat([whole.subarray(0, 20), Buffer.alloc(200, 7)]));
    await expect(loadPagesJsonl(corrupt)).rejects.toMatchObject({
      code: 'WIKI_ERR_CORPUS_INVALID',
      message: expect.stringContaining('corrupt.jsonl.gz') as string,
    });
    await expect(buildDiskIndex({ sources: [await corpusSourceFromPath(corrupt)], outDir: join(directory, 'corrupt') })).rejects.toMatchObject({
      code: 'WIKI_ERR_CORPUS_INVALID',
    });
    const bzip2 = join(directory, 'enwiki.jsonl.bz2');
    writeFileSync(bzip2, 'BZh9');
    await expect(loadPagesJsonl(bzip2)).rejects.toMatchObject({ code: 'WIKI_ERR_CORPUS_INVALID', message: expect.stringContaining('gzip') as string });
    const textless = join(directory, 'textless.jsonl');
    writeFileSync(textless, `${JSON.stringify({ id: 7, title: 'No body', url: 'x' })}\n`);
    await expect(loadPagesJsonl(textless)).rejects.toMatchObject({
      code: 'WIKI_ERR_CORPUS_INVALID',
      message: expect.stringMatching(/textless\.jsonl:1: field "content" \(markdown\) or "text"/) as string,
    });
  });
});
