/**
 * Load a folder of `.md` files as pages (searched recursively, in sorted order so ids and fingerprints
 * are stable). The page id is the slug of the file's path inside the folder without `.md`
 * (`History/Rome.md` → `history_rome`), matching the lower-case slug ids of the jsonl corpora; the
 * title is the file's first `# ` heading, or else its file name.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { CorralError } from '../core/errors.js';
import { slugify } from './page-sections.js';
import type { WikiPage } from './wiki-page.js';

const TITLE_HEADING = /^#\s+(.+?)\s*#*\s*$/m;

/** Every `.md` file under `folder`, as sorted absolute paths. */
export async function listMarkdownFiles(folder: string): Promise<string[]> {
  const info = await stat(folder).catch(() => null);
  if (info === null || !info.isDirectory()) {
    throw new CorralError('WIKI_ERR_CORPUS_NOT_FOUND', `wiki markdown folder not found: ${folder}`, { details: { path: folder } });
  }
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.toLowerCase().endsWith('.md'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

export function pageIdForMarkdownFile(folder: string, file: string): string {
  return slugify(relative(folder, file).slice(0, -'.md'.length).split(sep).join('_'));
}

/** One `.md` file's page: its title is the first `# ` heading, or else the file name. */
export function markdownFilePage(id: string, file: string, content: string): WikiPage {
  const title = TITLE_HEADING.exec(content)?.[1] ?? basename(file).slice(0, -'.md'.length);
  return { id, title, content };
}

/** Read every `.md` file under `folder`. Two files whose ids coincide are an error naming both. */
export async function loadMarkdownFolder(folder: string): Promise<WikiPage[]> {
  const files = await listMarkdownFiles(folder);
  const fileOfId = new Map<string, string>();
  const pages: WikiPage[] = [];
  for (const file of files) {
    const id = pageIdForMarkdownFile(folder, file);
    const earlier = fileOfId.get(id);
    if (earlier !== undefined) {
      throw new CorralError('WIKI_ERR_DUPLICATE_PAGE_ID', `${file}: page id "${id}" is also the id of ${earlier}; rename one file`, {
        details: { path: file, pageId: id },
      });
    }
    fileOfId.set(id, file);
    pages.push(markdownFilePage(id, file, await readFile(file, 'utf8')));
  }
  if (pages.length === 0) {
    throw new CorralError('WIKI_ERR_CORPUS_NOT_FOUND', `no .md files in wiki folder ${folder}`, { details: { path: folder } });
  }
  return pages;
}
