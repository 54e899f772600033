/**
 * Every folder under examples/ runs, as `npm run examples` runs it (STYLE principle 20), so an example that no
 * longer works fails CI. scripts/run-examples.ts fails on a folder it has no runner for.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backendAvailable } from '../helpers/backend-gate.js';
import { ROOT, childEnvironment } from './runner-cli.js';

const processBackend = await backendAvailable('process');

describe.skipIf(!processBackend)('examples/', () => {
  it('every example runs and passes its own checks', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'run-examples.ts')], {
      cwd: ROOT,
      env: childEnvironment(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, output).toBe(0);
    expect(output).toContain('examples/custom-env');
    expect(output).toContain('examples/mcp-client');
    expect(output).toContain('examples/env-package');
    for (const folder of ['best-of-n', 'bugfix', 'mixed-images', 'wordle', 'word-game', 'customer-service', 'nim'])
      expect(output).toContain(`examples/${folder}`);
    expect(output).toMatch(/\d+ example\(s\) passed/);
  }, 600_000);
});
