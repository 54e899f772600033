import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { registerTasksCommand } from '../../../src/cli/commands/tasks.js';
import { DEFAULT_BASE_IMAGE_MAP, loadBaseImageMap, mapBaseImage } from '../../../src/terminal/base-image-map.js';
import { rewriteDockerfileBases } from '../../../src/terminal/dockerfile-from-rewrite.js';
import { dataDirectoryWith } from '../../helpers/test-gates.js';

const dataDir = dataDirectoryWith(['terminal-tasks-harbor/hello-world/task.toml']);
const FIXTURES = resolve(import.meta.dirname, '../../fixtures/terminal');
const map = { entries: DEFAULT_BASE_IMAGE_MAP };

/** Runs `corral tasks ...` in-process; returns what it printed and the exit code it set. */
async function runTasks(args: string[]): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0);
  process.exitCode = undefined;
  try {
    const program = new Command('corral').exitOverride();
    registerTasksCommand(program);
    await program.parseAsync(['node', 'corral', 'tasks', ...args]);
    return { stdout: out.join(''), stderr: err.join(''), exitCode: Number(process.exitCode ?? 0) };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    process.exitCode = undefined;
  }
}

let scratch: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'corral-terminal-check-'));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('the base-image map and the FROM rewrite', () => {
  it('maps the public bases of real tasks to the local Debian bases; unknown images stay unmapped', () => {
    expect(mapBaseImage(map, 'ubuntu:24.04')).toBe('corral/task-debian:latest');
    expect(mapBaseImage(map, 'debian:bookworm-slim')).toBe('corral/task-debian:latest');
    expect(mapBaseImage(map, 'python:3.13-slim-bookworm')).toBe('corral/task-python:latest');
    expect(mapBaseImage(map, 'ghcr.io/laude-institute/t-bench/python-3-13:20250620')).toBe('corral/task-python:latest');
    expect(mapBaseImage(map, 'ubuntu@sha256:0123')).toBe('corral/task-debian:latest');
    expect(mapBaseImage(map, 'node:22')).toBeUndefined();
  });

  it('rewrites FROM lines only, keeps stage references, scratch and every other byte', () => {
    const dockerfile = [
      '# FROM ubuntu:24.04 in a comment stays',
      'FROM --platform=linux/amd64 python:3.13-slim-bookworm AS build',
      'RUN echo FROM ubuntu',
      'FROM build AS test',
      'FROM scratch',
      'from ubuntu:24.04',
      'COPY --from=build /a /a',
      '',
    ].join('\n');
    const rewritten = rewriteDockerfileBases(dockerfile, map);
    expect(rewritten.text).toBe(
      [
        '# FROM ubuntu:24.04 in a comment stays',
        'FROM corral/task-python:latest AS build',
        'RUN echo FROM ubuntu',
        'FROM build AS test',
        'FROM scratch',
        'from corral/task-debian:latest',
        'COPY --from=build /a /a',
        '',
      ].join('\n'),
    );
    expect(rewritten.bases.map((base) => [base.image, base.mappedTo])).toEqual([
      ['python:3.13-slim-bookworm', 'corral/task-python:latest'],
      ['ubuntu:24.04', 'corral/task-debian:latest'],
    ]);
  });

  it('a user map file is tried before the defaults', async () => {
    const file = join(scratch, 'map.json');
    await writeFile(file, JSON.stringify({ 'ubuntu:24.04': 'my/ubuntu:local' }));
    const userMap = await loadBaseImageMap(file);
    expect(mapBaseImage(userMap, 'ubuntu:24.04')).toBe('my/ubuntu:local');
    expect(mapBaseImage(userMap, 'ubuntu:22.04')).toBe('corral/task-debian:latest');
    await writeFile(file, '["not", "a", "map"]');
    await expect(loadBaseImageMap(file)).rejects.toMatchObject({ code: 'TASK_ERR_INVALID' });
  });
});

describe.runIf(dataDir)('corral tasks check', () => {
  it('prints one line per task of terminal-tasks-harbor (name, image source, timeouts, network, limits) and exits 0', async () => {
    const result = await runTasks(['check', join(dataDir!, 'terminal-tasks-harbor')]);
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(11);
    expect(lines).toContain(
      'terminal-bench/hello-world [harbor] | build environment/Dockerfile FROM python:3.13-slim-bookworm → corral/task-python:latest | agent 360 s | verifier 60 s | build 600 s | network public | cpus 1, memory 2048 MB | workdir /app | oracle yes',
    );
    expect(lines.find((line) => line.startsWith('terminal-bench/fix-permissions '))).toContain('FROM ubuntu:24.04 → corral/task-debian:latest');
    expect(lines.at(-1)).toBe('10 task(s) ok, 0 failed');
    expect(result.stderr).toBe('');
  });

  it('lists a TB v1 folder; prints a failing task with its code and exits 2', async () => {
    const result = await runTasks(['check', join(FIXTURES, 'tb-v1')]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(
      'greet-file [terminal-bench-v1] | build Dockerfile FROM ghcr.io/laude-institute/t-bench/ubuntu-24-04:20250624 → corral/task-debian:latest | agent 120 s | verifier 30 s',
    );
    await runTasks(['migrate', join(FIXTURES, 'tb-v1'), scratch]);
    await writeFile(join(scratch, 'greet-file', 'task.toml'), '[[steps]]\nname = "a"\n');
    const failing = await runTasks(['check', scratch]);
    expect(failing.exitCode).toBe(2);
    expect(failing.stderr).toMatch(/^error: greet-file: TASK_ERR_UNSUPPORTED: .*multi-step/m);
    expect(failing.stdout).toContain('0 task(s) ok, 1 failed');
  });
});
