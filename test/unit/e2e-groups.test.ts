/**
 * The e2e split vitest.config.ts reads (test/helpers/e2e-groups.ts): every listed file exists, none is in both
 * groups, and the config's projects put each e2e file in exactly one of them, unlisted files in the serial one.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';
import { PARALLEL_E2E_FILES, SERIAL_E2E_FILES } from '../helpers/e2e-groups.js';

const E2E = resolve(import.meta.dirname, '../e2e');

describe('e2e groups', () => {
  it('names only files that exist, each in one group', () => {
    const listed = [...PARALLEL_E2E_FILES, ...Object.keys(SERIAL_E2E_FILES)];
    expect(listed.filter((file) => !existsSync(join(E2E, file)))).toEqual([]);
    expect(listed.filter((file, index) => listed.indexOf(file) !== index)).toEqual([]);
  });

  it('runs the parallel files in e2e-parallel and every other e2e file in e2e-serial', () => {
    const projects = (config.test?.projects ?? []) as {
      test: { name: string; include?: string[]; exclude?: string[]; maxWorkers?: number; isolate?: boolean };
    }[];
    const parallel = projects.find((project) => project.test.name === 'e2e-parallel')!.test;
    const serial = projects.find((project) => project.test.name === 'e2e-serial')!.test;
    expect(parallel.include).toEqual(PARALLEL_E2E_FILES.map((file) => `test/e2e/${file}`));
    expect(serial.include).toEqual(['test/e2e/**/*.test.ts']);
    expect(serial.exclude).toEqual(parallel.include);
    expect(serial.maxWorkers).toBe(1);
    // Parallel files share a worker's module cache; a serial file gets a fresh process (descriptor counts, faults).
    expect(parallel.isolate).toBe(false);
    expect(serial.isolate).not.toBe(false);
    const unlisted = readdirSync(E2E).filter((file) => file.endsWith('.test.ts') && !PARALLEL_E2E_FILES.includes(file));
    expect(unlisted.filter((file) => parallel.include!.includes(`test/e2e/${file}`))).toEqual([]);
  });
});
