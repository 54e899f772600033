import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { taskImageHash, taskImageRepository } from '../../../src/terminal/environment-hash.js';

let context: string;
beforeEach(async () => {
  context = await mkdtemp(join(tmpdir(), 'corral-terminal-hash-'));
  await mkdir(join(context, 'data'));
  await writeFile(join(context, 'Dockerfile'), 'FROM ubuntu:24.04\n');
  await writeFile(join(context, 'data', 'input.csv'), 'a,b\n');
});
afterEach(async () => {
  await rm(context, { recursive: true, force: true });
});

describe('task image tags', () => {
  it('name the repository after the task, in the characters Docker allows', () => {
    expect(taskImageRepository('terminal-bench/hello-world')).toBe('corral-task/terminal-bench-hello-world');
    expect(taskImageRepository('Org/My Task!')).toBe('corral-task/org-my-task');
  });

  it('hash the context files, their executable bit, the rewritten Dockerfile and the base ids; nothing else', async () => {
    const dockerfile = 'FROM corral/task-debian:latest\n';
    const original = await taskImageHash(context, dockerfile, ['sha256:base1']);
    expect(original).toMatch(/^[0-9a-f]{16}$/);
    expect(await taskImageHash(context, dockerfile, ['sha256:base1'])).toBe(original);
    expect(await taskImageHash(context, dockerfile, ['sha256:base2'])).not.toBe(original);
    expect(await taskImageHash(context, 'FROM corral/task-python:latest\n', ['sha256:base1'])).not.toBe(original);
    await chmod(join(context, 'data', 'input.csv'), 0o755);
    const executable = await taskImageHash(context, dockerfile, ['sha256:base1']);
    expect(executable).not.toBe(original);
    await writeFile(join(context, 'data', 'input.csv'), 'a,c\n');
    expect(await taskImageHash(context, dockerfile, ['sha256:base1'])).not.toBe(executable);
  });
});
