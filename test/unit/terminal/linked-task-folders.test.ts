/**
 * Task folders are untrusted input: a tests/, solution/ or environment/ that is a link would make the host copy
 * files from outside the task folder into the task's containers (tar follows a linked folder). Such a task does
 * not load (TASK_ERR_INVALID); the same folders as real folders load.
 */
import { cp, mkdtemp, rename, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadTask } from '../../../src/terminal/dataset-loader.js';

const HARBOR = resolve(import.meta.dirname, '../../fixtures/terminal/hostile/always-zero');
const TB_V1 = resolve(import.meta.dirname, '../../fixtures/terminal/tb-v1/greet-file');

describe('task folders that are links', () => {
  let scratch: string;
  beforeEach(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'corral-linked-task-'));
  });
  afterEach(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  /** A copy of `fixture` whose `folder` was moved outside the task and linked back. */
  async function withLinkedFolder(fixture: string, folder: string): Promise<string> {
    const task = join(scratch, `task-${folder}`);
    await cp(fixture, task, { recursive: true });
    const outside = join(scratch, `outside-${folder}`);
    await rename(join(task, folder), outside);
    await symlink(outside, join(task, folder));
    return task;
  }

  for (const folder of ['tests', 'solution', 'environment']) {
    it(`a Harbor task whose ${folder}/ is a link does not load`, async () => {
      await expect(loadTask(await withLinkedFolder(HARBOR, folder))).rejects.toMatchObject({ code: 'TASK_ERR_INVALID' });
    });
  }

  it('a Terminal-Bench v1 task whose tests/ is a link does not load', async () => {
    await expect(loadTask(await withLinkedFolder(TB_V1, 'tests'))).rejects.toMatchObject({ code: 'TASK_ERR_INVALID' });
  });

  it('the same tasks with real folders load', async () => {
    await expect(loadTask(HARBOR)).resolves.toMatchObject({ format: 'harbor' });
    await expect(loadTask(TB_V1)).resolves.toMatchObject({ format: 'terminal-bench-v1' });
  });
});
