/**
 * Fingerprints say whether a saved index still matches its corpus. Sources are fingerprinted by their
 * bytes (cheap: no parsing, so a fresh index file is accepted without reading the corpus as pages);
 * in-memory pages by their fields. Paths are left out on purpose, so a copy of the data directory at
 * another path (CI's checkout) still matches.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { CorpusSource } from './corpus-sources.js';
import { assertFileExists } from './jsonl-corpus-loader.js';
import { listMarkdownFiles } from './markdown-folder-loader.js';
import type { WikiPage } from './wiki-page.js';

const FINGERPRINT_CHARS = 32;

export function fingerprintPages(pages: readonly WikiPage[]): string {
  const hash = createHash('sha256');
  for (const page of pages) hash.update(JSON.stringify([page.id, page.title, page.content])).update('\n');
  return `pages:${hash.digest('hex').slice(0, FINGERPRINT_CHARS)}`;
}

export async function fingerprintCorpusSources(sources: readonly CorpusSource[]): Promise<string> {
  const hash = createHash('sha256');
  for (const source of sources) {
    hash.update(JSON.stringify([source.kind, source.idPrefix ?? null])).update('\n');
    if (source.kind === 'pages-jsonl') {
      await assertFileExists(source.path);
      hash.update(await readFile(source.path));
      continue;
    }
    for (const file of await listMarkdownFiles(source.path)) {
      hash.update(JSON.stringify(relative(source.path, file))).update('\n');
      hash.update(await readFile(file));
    }
  }
  return `sources:${hash.digest('hex').slice(0, FINGERPRINT_CHARS)}`;
}
