/**
 * CI's environment check: `corral env check` through the real CLI over every built-in environment and every
 * environment under examples/, with no error-level check. The stable part of each report (check ids, severities,
 * pass/fail, the oracle it ran, who played which role) is kept as an expectation file, so a regression shows as a
 * diff in review; rewards, timings and evidence are not kept (they move with the data and the machine). The examples
 * that talk back are checked on two examples each; customer-service's simulated customer is the example's scripted
 * model on a scripted model server in this process, reached through --env-args.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvironmentCheckReport } from '../../src/environment-check/check-report.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { customerServiceModels } from '../../examples/customer-service/scripted-models.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { dataDirectoryWith } from '../helpers/test-gates.js';
import { ROOT, runCorral } from './runner-cli.js';

const EXPECTED = join(ROOT, 'test', 'fixtures', 'environment-check', 'expected');
const processBackend = await backendAvailable('process');
const dockerBackend = await backendAvailable('docker');
const dataDir = dataDirectoryWith(['humaneval/HumanEval.jsonl', 'qa/squad-v1.1-dev/dev.jsonl', 'wiki']);
const harborTasks = dataDirectoryWith(['terminal-tasks-harbor/hello-world/task.toml']);

interface Target {
  name: string;
  environment: string;
  /** Task folders always run their trials in Docker (no --backend). */
  backend: 'process' | 'docker' | 'trials';
}

const builtIns: Target[] = [
  { name: 'wiki-search', environment: 'wiki-search', backend: 'process' },
  { name: 'python-code', environment: 'python-code', backend: 'process' },
];

const examples: Target[] = [
  { name: 'examples-custom-env', environment: 'examples/custom-env/index.ts', backend: 'process' },
  { name: 'examples-bugfix', environment: 'examples/bugfix/index.ts', backend: 'process' },
  { name: 'examples-wordle', environment: 'examples/wordle/index.ts', backend: 'process' },
  { name: 'examples-env-package', environment: 'examples/env-package/index.ts', backend: 'process' },
  { name: 'examples-train-grpo', environment: 'examples/train-grpo/env.ts', backend: 'process' },
  { name: 'examples-mixed-images', environment: 'examples/mixed-images/index.ts', backend: 'docker' },
  { name: 'examples-best-of-n', environment: 'examples/best-of-n/env.ts', backend: 'process' },
];

/** Environments that talk back (respond, a simulated user, roles): two examples each keep the added time small. */
const talking: Target[] = [
  { name: 'examples-word-game', environment: 'examples/word-game/index.ts', backend: 'process' },
  { name: 'examples-nim', environment: 'examples/nim/index.ts', backend: 'process' },
  { name: 'examples-customer-service', environment: 'examples/customer-service/index.ts', backend: 'process' },
];
const TALKING_EXAMPLES = ['-n', '2'];

/** What a regression would change: which checks ran, and how each came out. */
const stableParts = (report: EnvironmentCheckReport) => ({
  version: report.version,
  environment: report.environment,
  oracle: report.oracle,
  floor: report.floor,
  ...(report.roles ? { roles: report.roles } : {}),
  checks: report.checks.map((check) => ({ id: check.id, severity: check.severity, passed: check.passed })),
});

async function checkAndCompare(target: Target, extra: Record<string, string> = {}, flags: string[] = []): Promise<void> {
  const backend = target.backend === 'trials' ? [] : ['--backend', target.backend];
  const result = await runCorral(['env', 'check', target.environment, '--json', ...backend, ...flags], extra);
  expect(result.stdout, result.stderr).toMatch(/^\{/);
  const report = JSON.parse(result.stdout) as EnvironmentCheckReport;
  const errors = report.checks.filter((check) => check.severity === 'error').map((check) => `${check.id}: ${check.summary}`);
  expect(errors).toEqual([]);
  expect(result.code).toBe(0);
  await expect(`${JSON.stringify(stableParts(report), null, 2)}\n`).toMatchFileSnapshot(join(EXPECTED, `${target.name}.json`));
}

describe.skipIf(!processBackend || !dataDir)('corral env check over the built-in environments', () => {
  it.each(builtIns)('$name', (target) => checkAndCompare(target, { CORRAL_DATA_DIR: dataDir! }), 300_000);
});

describe.skipIf(!processBackend)('corral env check over examples/', () => {
  it.each(examples.filter((target) => target.backend === 'process'))('$name', (target) => checkAndCompare(target), 300_000);
});

describe.skipIf(!processBackend)('corral env check over the examples that talk back', () => {
  let customer: ScriptedModelServer;
  beforeAll(async () => {
    customer = await startScriptedModelServer(customerServiceModels, { recordRequests: false });
  });
  afterAll(async () => {
    await customer.close();
  });

  it.each(talking.filter((target) => target.name !== 'examples-customer-service'))('$name', (target) => checkAndCompare(target, {}, TALKING_EXAMPLES), 300_000);

  it('examples-customer-service (the simulated customer on a scripted model server)', async () => {
    const userEndpoint = ['--env-args', JSON.stringify({ user_base_url: customer.baseURL })];
    await checkAndCompare(
      talking.find((target) => target.name === 'examples-customer-service')!,
      {},
      [...TALKING_EXAMPLES, ...userEndpoint],
    );
  }, 300_000);
});

describe.skipIf(!processBackend)('corral env check over an installed environment package', () => {
  it('checks corral-env-vault by name as it checks its module (the same expectation)', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'corral-env-check-'));
    try {
      const installed = await runCorral(['env', 'install', join(ROOT, 'examples', 'env-package'), '--cache-dir', cache]);
      expect(installed.code, installed.stderr).toBe(0);
      await checkAndCompare({ name: 'examples-env-package', environment: 'corral-env-vault', backend: 'process' }, {}, ['--cache-dir', cache]);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }, 300_000);
});

describe.skipIf(!dockerBackend)('corral env check over examples/ (docker backend)', () => {
  it.each(examples.filter((target) => target.backend === 'docker'))('$name', (target) => checkAndCompare(target), 300_000);
});

// The shared Harbor tasks, every one (images are cached by content hash; oracle, forging floor, plain nop where it
// scored). The TB v1 copy in terminal-tasks is data without Dockerfiles or solutions (its SOURCE.md): it does not
// load as tasks, which the check reports as hygiene.tasks-load, so it is not a CI target.
describe.skipIf(!dockerBackend || !harborTasks)('corral env check over the shared Harbor task folder', () => {
  it(
    'terminal-tasks-harbor',
    () => checkAndCompare({ name: 'terminal-tasks-harbor', environment: join(harborTasks!, 'terminal-tasks-harbor'), backend: 'trials' }),
    300_000,
  );
});

describe('the environment check covers every environment under examples/', () => {
  it('lists each examples/ folder that holds an environment module', () => {
    const modules = readdirSync(join(ROOT, 'examples'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => ['index.ts', 'env.ts'].map((file) => `examples/${entry.name}/${file}`))
      .filter((path) => existsSync(join(ROOT, path)));
    expect(modules.sort()).toEqual([...examples, ...talking].map((target) => target.environment).sort());
  });
});
