/**
 * A Harbor / Terminal-Bench task folder is an environment argument (issue 22): resolution locates a folder holding
 * task.toml or task.yaml, or a folder of them, as a task folder (before trying it as a package folder), keeps a
 * built-in name a built-in, and says how to run one where only MCP-tool environments can go.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { environmentCache } from '../../../src/environment-packages/environment-cache.js';
import { describeEnvironmentSource } from '../../../src/environment-packages/environment-source.js';
import { locateEnvironment, resolveEnvironment } from '../../../src/environment-packages/resolve-environment.js';
import { taskFolderAt } from '../../../src/environment-packages/task-folder.js';
import { builtInEnvironments } from '../../../src/runner/environments/index.js';
import { corralFailure } from '../../helpers/corral-failure.js';

let scratch = '';
const options = () => ({ builtIns: builtInEnvironments, cache: environmentCache({ cache: { dir: join(scratch, 'cache') } }), log: () => undefined });

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'corral-task-folder-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

function folderWith(relativePath: string, file: string): string {
  const directory = join(scratch, relativePath);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, file), '');
  return directory;
}

describe('task folders in environment resolution', () => {
  it('locates a Harbor task (task.toml), a Terminal-Bench v1 task (task.yaml) and a folder of tasks as task folders', async () => {
    const harbor = folderWith('harbor-task', 'task.toml');
    const v1 = folderWith('v1-task', 'task.yaml');
    folderWith('dataset/one', 'task.toml');
    folderWith('dataset/two', 'task.yaml');
    const dataset = join(scratch, 'dataset');
    for (const path of [harbor, v1, dataset]) {
      expect(await locateEnvironment(path, options())).toEqual({ kind: 'task-folder', path });
      expect(taskFolderAt(path, Object.keys(builtInEnvironments))).toBe(path);
    }
    expect(describeEnvironmentSource({ kind: 'task-folder', path: dataset })).toEqual({ kind: 'task-folder', path: dataset });
  });

  it('a folder holding neither (nor hidden task folders) is not a task folder; a built-in name is never one', async () => {
    folderWith('plain/.hidden', 'task.toml');
    folderWith('plain/notes', 'README.md');
    const plain = join(scratch, 'plain');
    expect(taskFolderAt(plain, Object.keys(builtInEnvironments))).toBeUndefined();
    await expect(locateEnvironment(plain, options())).rejects.toThrow();
    folderWith('wiki-search', 'task.toml');
    const cwd = process.cwd();
    process.chdir(scratch);
    try {
      expect(taskFolderAt('wiki-search', Object.keys(builtInEnvironments))).toBeUndefined();
      expect(await locateEnvironment('wiki-search', options())).toEqual({ kind: 'built-in', name: 'wiki-search' });
    } finally {
      process.chdir(cwd);
    }
  });

  it('resolving a task folder as an MCP-tool environment is refused with how to run its trials', async () => {
    const harbor = folderWith('served', 'task.toml');
    const failure = await corralFailure(resolveEnvironment(harbor, options()));
    expect(failure.code).toBe('TASK_ERR_UNSUPPORTED');
    expect(failure.message).toContain(`corral eval ${harbor}`);
  });
});
