/**
 * Reads the import table from docs/architecture.md and checks source files against it. The table, not this file,
 * is the rule: a row per folder under src/, each listing what its files may import (`x/` the folder itself, `x/**`
 * it and everything under it), plus the folders a row may reach only by dynamic import().
 */
import { readFileSync } from 'node:fs';
import { dirname, posix } from 'node:path';

export interface ImportRule {
  /** A file name for an entry point directly in src/ ('index.ts', 'server-api.ts'), else a folder relative to src/ ending in '/'. */
  folder: string;
  allowed: string[];
  dynamicAllowed: string[];
}

export interface SourceFile {
  /** Path relative to src/, with forward slashes (e.g. 'sandbox/pool/sandbox-pool.ts'). */
  path: string;
  text: string;
}

const TABLE = /<!-- import-table:start -->([\s\S]*?)<!-- import-table:end -->/;

export function readImportTable(markdownPath: string): ImportRule[] {
  const match = TABLE.exec(readFileSync(markdownPath, 'utf8'));
  if (!match) throw new Error(`${markdownPath} has no import table between the import-table markers`);
  const rows = match[1]!.split('\n').filter((line) => line.startsWith('| `'));
  return rows.map((line) => {
    const cells = line.split('|').map((cell) => cell.trim());
    const folder = cells[1]!.replaceAll('`', '');
    const [plain = '', dynamic = ''] = cells[3]!.split(/;\s*dynamic:/);
    const names = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((name) => name[1]!);
    return { folder, allowed: names(plain), dynamicAllowed: names(dynamic) };
  });
}

function folderOf(path: string): string {
  const folder = dirname(path);
  return folder === '.' ? '' : `${folder}/`;
}

function ruleFor(path: string, rules: readonly ImportRule[]): ImportRule | undefined {
  // A file directly in src/ (an entry point: index.ts, server-api.ts, ...) has a row of its own, by name.
  const key = folderOf(path) === '' ? path : folderOf(path);
  return rules.find((rule) => rule.folder === key);
}

function permits(entries: readonly string[], targetFolder: string): boolean {
  return entries.some((entry) => (entry.endsWith('/**') ? targetFolder.startsWith(entry.slice(0, -2)) : targetFolder === entry));
}

function importsOf(text: string): { target: string; dynamic: boolean }[] {
  const found: { target: string; dynamic: boolean }[] = [];
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g)) found.push({ target: match[1]!, dynamic: false });
  for (const match of text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) found.push({ target: match[1]!, dynamic: true });
  return found;
}

/** Every import that the table does not allow, and every source folder without a row, as readable lines. */
export function findLayeringViolations(files: readonly SourceFile[], rules: readonly ImportRule[]): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const rule = ruleFor(file.path, rules);
    if (!rule) {
      violations.push(`${file.path}: its folder has no row in the import table`);
      continue;
    }
    const own = folderOf(file.path);
    for (const { target, dynamic } of importsOf(file.text)) {
      const resolved = posix.normalize(posix.join(own || '.', target));
      if (resolved.startsWith('..')) continue; // outside src/ (package.json and the like)
      const targetFolder = folderOf(resolved);
      if (targetFolder === own) continue;
      if (permits(rule.allowed, targetFolder)) continue;
      if (dynamic && permits(rule.dynamicAllowed, targetFolder)) continue;
      violations.push(`${file.path} imports ${resolved}${dynamic ? ' (dynamic)' : ''}`);
    }
  }
  return violations;
}
