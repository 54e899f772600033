import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findLayeringViolations, readImportTable, type SourceFile } from '../helpers/import-table.js';

// The rule is the import table in docs/architecture.md; this test re-derives it from the source.
const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const rules = readImportTable(join(ROOT, 'docs/architecture.md'));

function sourceFiles(dir: string): SourceFile[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [{ path: relative(SRC, path).split(sep).join('/'), text: readFileSync(path, 'utf8') }] : [];
  });
}

function sourceFolders(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => statSync(join(dir, name)).isDirectory())
    .flatMap((name) => [`${relative(SRC, join(dir, name)).split(sep).join('/')}/`, ...sourceFolders(join(dir, name))]);
}

describe('layering', () => {
  it('every import in src/ is allowed by the import table in docs/architecture.md', () => {
    expect(findLayeringViolations(sourceFiles(SRC), rules)).toEqual([]);
  });

  it('every folder under src/ has a row, and every row names a folder that exists', () => {
    const folders = sourceFolders(SRC);
    const rowFolders = rules.map((rule) => rule.folder).filter((folder) => folder.endsWith('/'));
    expect(folders.filter((folder) => !rowFolders.includes(folder))).toEqual([]);
    expect(rowFolders.filter((folder) => !folders.includes(folder))).toEqual([]);
  });

  it('a planted wrong import is caught: core importing the runner, a tool importing a backend, a static backend import', () => {
    const planted: SourceFile[] = [
      { path: 'core/planted.ts', text: "import { runRollout } from '../runner/scheduler/run-rollout.js';\n" },
      { path: 'tools/shell/planted.ts', text: "import { DockerProvider } from '../../sandbox/docker/docker-provider.js';\n" },
      { path: 'sandbox/registry-planted.ts', text: "import { ProcessProvider } from './process/process-provider.js';\n" },
      { path: 'nowhere/planted.ts', text: '' },
    ];
    expect(findLayeringViolations(planted, rules)).toEqual([
      'core/planted.ts imports runner/scheduler/run-rollout.js',
      'tools/shell/planted.ts imports sandbox/docker/docker-provider.js',
      'sandbox/registry-planted.ts imports sandbox/process/process-provider.js',
      'nowhere/planted.ts: its folder has no row in the import table',
    ]);
  });

  it('test/unit mirrors src/: every folder of unit tests names a folder of src/', () => {
    const unitRoot = join(ROOT, 'test/unit');
    const unitFolders = readdirSync(unitRoot, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${relative(unitRoot, join(entry.parentPath, entry.name)).split(sep).join('/')}/`);
    expect(unitFolders.filter((folder) => !sourceFolders(SRC).includes(folder))).toEqual([]);
  });

  it('every entry file directly in src/ has its own row, and the entry points use named exports only', () => {
    const entryFiles = readdirSync(SRC).filter((name) => name.endsWith('.ts'));
    const entryRows = rules.map((rule) => rule.folder).filter((folder) => !folder.endsWith('/'));
    expect(entryRows.sort()).toEqual(entryFiles.sort());
    for (const name of entryFiles) expect(readFileSync(join(SRC, name), 'utf8'), name).not.toMatch(/export \*/);
  });
});
