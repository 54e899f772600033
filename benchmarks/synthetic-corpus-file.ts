/**
 * The scale corpora of `corral bench search` as pages.jsonl files in a cache directory (never the repo), written
 * one page at a time so a million pages never sit in memory, and reused by later runs: a file is complete only
 * once renamed from its temporary name.
 */
import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import type { SectionedPage } from '../src/wiki-search/wiki-page.js';
import { type SyntheticCorpusOptions, syntheticPages } from './synthetic-corpus.js';

/** Path of the corpus file for these options, written first when it is not there yet. */
export async function syntheticCorpusFile(directory: string, realPages: readonly SectionedPage[], options: SyntheticCorpusOptions): Promise<string> {
  const name = `synthetic-${options.pageCount}-seed${options.seed ?? 1}-tail${options.longTailWordsPerPage ?? 0}x${options.longTailVocabulary ?? 0}.jsonl`;
  const path = join(directory, name);
  if (existsSync(path)) return path;
  mkdirSync(directory, { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  const output = createWriteStream(temporary);
  for (const page of syntheticPages(realPages, options)) {
    if (!output.write(`${JSON.stringify(page)}\n`)) await once(output, 'drain');
  }
  output.end();
  await once(output, 'finish');
  renameSync(temporary, path);
  return path;
}
