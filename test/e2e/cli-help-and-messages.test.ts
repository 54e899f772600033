/**
 * What a user reads, through the real CLI: `corral --help` names every benchmark `corral bench` has (as the README
 * does), `corral eval --help` names the installed-package and CLI-agent choices, and errors name the flag the user
 * typed (--data-dir, --sampling), not an internal field. The README's sandbox example shows the id prefix the
 * server really issues.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_AGENT_NAMES } from '../../src/cli-agents/cli-agent-registry.js';
import { HANDLE_ID_PREFIX } from '../../src/mcp/handle-store.js';
import { ROOT, runCorral } from './runner-cli.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const flat = (text: string) => text.replace(/\s+/g, ' ');

describe('help texts and messages', () => {
  it('`corral --help` and the README name every benchmark `corral bench` registers', async () => {
    const benchHelp = await runCorral(['bench', '--help']);
    const registered = [...benchHelp.stdout.matchAll(/^ {2}([a-z-]+) \[options\]/gm)].map((match) => match[1]!).sort();
    expect(registered.length).toBeGreaterThanOrEqual(9);
    const topHelp = flat((await runCorral(['--help'])).stdout);
    const listed = /bench \[arguments\.\.\.\] run a benchmark \(from a checkout\): ([a-z| -]+?) \[--json\]/.exec(topHelp)?.[1];
    expect(
      listed
        ?.split('|')
        .map((name) => name.trim())
        .sort(),
    ).toEqual(registered);
    const readmeList = /`corral bench ([a-z\\|-]+) \[--json\]`/.exec(README)?.[1];
    expect(readmeList?.split('\\|').sort()).toEqual(registered);
  }, 120_000);

  it('`corral eval --help` names installed environment packages, the terminal environment and the CLI agents', async () => {
    const help = flat((await runCorral(['eval', '--help'])).stdout);
    expect(help).toMatch(/installed environment package/);
    expect(help).toMatch(/terminal/);
    for (const agent of CLI_AGENT_NAMES) expect(help).toContain(agent);
  }, 120_000);

  it('a missing dataset under --data-dir names --data-dir, not only CORRAL_DATA_DIR', async () => {
    const result = await runCorral(['eval', 'wiki-search', '--agent', 'baseline', '-n', '1', '--data-dir', '/nonexistent-corral-data'], {
      CORRAL_DATA_DIR: '',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ENV_ERR_DATASET_NOT_FOUND.*--data-dir/);
  }, 120_000);

  it('a reserved field in --sampling names --sampling, not samplingArgs', async () => {
    const result = await runCorral([
      'eval',
      'wiki-search',
      '-m',
      'x',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--sampling',
      '{"model":"y"}',
      '-n',
      '1',
      '--corpus',
      join(ROOT, 'test', 'fixtures', 'runner', 'tiny-pages.jsonl'),
      '--questions',
      join(ROOT, 'test', 'fixtures', 'runner', 'tiny-questions.jsonl'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/\(--sampling\) may not set model/);
    expect(result.stderr).not.toMatch(/samplingArgs may/);
  }, 120_000);

  it("the README's sandbox example shows the handle id prefix the server issues", () => {
    const example = /POST localhost:7777\/v1\/sandboxes[^\n]*\n# -> (\{[^\n]*\})/.exec(README)?.[1];
    expect(example).toContain(`"id":"${HANDLE_ID_PREFIX}_...`);
    expect(example).toContain(`/mcp/python/${HANDLE_ID_PREFIX}_...`);
  });
});
