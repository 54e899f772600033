/**
 * corral/python-sci and corral/dev with the real Docker engine: built offline (skipped when their content
 * hash exists), then used through the sandbox spec's `image` as an environment names it. The python tool in
 * corral/python-sci imports numpy, pandas, scipy, sympy and matplotlib and computes with them; corral/dev
 * compiles and runs C, runs node, git and rg, all as the sandbox user with no network.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { DEV_IMAGE, PYTHON_SCI_IMAGE, latestTag } from '../../src/sandbox/docker/image-definition.js';
import { SandboxPool } from '../../src/sandbox/pool/sandbox-pool.js';
import type { SandboxSpecInput } from '../../src/sandbox/spec.js';
import { invokeTool } from '../../src/tools/invoke-tool.js';
import { pythonTool } from '../../src/tools/python/python-tool.js';
import { bashTool } from '../../src/tools/shell/bash-tool.js';
import type { ToolDefinition } from '../../src/tools/tool-definition.js';
import { lazyToolSandbox } from '../../src/tools/tool-sandbox.js';
import { backendAvailable } from '../helpers/backend-gate.js';

const dockerAvailable = await backendAvailable('docker');

describe.runIf(dockerAvailable)('sandbox images corral/python-sci and corral/dev', () => {
  const pool = new SandboxPool({ minIdle: 0, healthIntervalMs: 0, reapIntervalMs: 0, acquireTimeoutMs: 120_000 });

  beforeAll(async () => {
    await buildImages({ offline: true, definitions: [PYTHON_SCI_IMAGE, DEV_IMAGE], log: (line) => console.log(`[images] ${line}`) });
  }, 1_800_000);
  afterAll(() => pool.close());

  /** Calls one tool in a fresh sandbox of this spec (the pool acquires it as an environment's spec would). */
  async function callInSandbox(spec: SandboxSpecInput, tool: ToolDefinition, input: Record<string, unknown>) {
    const lease = await pool.acquire({ backend: 'docker', ...spec });
    try {
      return await invokeTool(tool, input, { abortSignal: new AbortController().signal, sandbox: lazyToolSandbox(async () => lease.session) });
    } finally {
      await lease.release();
    }
  }

  it('the python tool in corral/python-sci imports numpy, pandas, scipy, sympy and matplotlib and computes with them', async () => {
    const code = [
      'import numpy, pandas, scipy, sympy, matplotlib',
      'matplotlib.use("Agg")',
      'import matplotlib.pyplot as plt',
      'from scipy import integrate',
      'x = sympy.Symbol("x")',
      'frame = pandas.DataFrame({"a": numpy.arange(1, 5)})',
      'figure = plt.figure(); plt.plot(frame.a); figure.savefig("plot.png")',
      'import os',
      '(int(frame.a.sum()), round(integrate.quad(lambda t: t**2, 0, 3)[0], 6), str(sympy.integrate(x**2, (x, 0, 3))), os.path.getsize("plot.png") > 1000)',
    ].join('\n');
    const result = await callInSandbox({ image: latestTag(PYTHON_SCI_IMAGE) }, pythonTool, { code, timeout_s: 120 });
    expect(result.isError, result.text).toBeFalsy();
    expect((result.structuredContent as { value: string }).value).toBe("(10, 9.0, '9', True)");
  }, 300_000);

  it('corral/python (the default image) has no numpy, so the spec image is what made the import work', async () => {
    const result = await callInSandbox({}, pythonTool, { code: 'import numpy' });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('ModuleNotFoundError');
  }, 120_000);

  it('corral/dev has git, gcc, node and rg working as the sandbox user, with no network', async () => {
    const command = [
      'set -e',
      'id -u',
      "cat > hello.c <<'SOURCE'",
      '#include <stdio.h>',
      'int main(void) { printf("c:%d\\n", 6 * 7); return 0; }',
      'SOURCE',
      'gcc -O2 -o hello hello.c && ./hello',
      'g++ --version >/dev/null && make --version >/dev/null && curl --version >/dev/null',
      'node -e "console.log(\'node:\' + [1,2,3].reduce((a,b)=>a+b))"',
      'git init -q repo && cd repo && git -c user.email=a@b -c user.name=t commit -q --allow-empty -m first && git log --format=git:%s && cd ..',
      'printf "needle here\\n" > haystack.txt && rg --no-heading -c needle haystack.txt | sed "s/^/rg:/"',
      'python3 -c "print(\'python:ok\')"',
      'curl -sS -m 5 http://deb.debian.org/ >/dev/null 2>&1 && echo network:yes || echo network:no',
    ].join('\n');
    const result = await callInSandbox({ image: latestTag(DEV_IMAGE) }, bashTool, { command, timeout_s: 120 });
    const output = result.structuredContent as { stdout: string; stderr: string; exit_code: number };
    expect(output.exit_code, output.stderr).toBe(0);
    expect(output.stdout.trim().split('\n')).toEqual(['1000', 'c:42', 'node:6', 'git:first', 'rg:1', 'python:ok', 'network:no']);
  }, 300_000);
});
