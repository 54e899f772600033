/**
 * One CLI coding agent (codex by default; CORRAL_TEST_CLI_AGENT picks another) in a terminal trial, against the
 * always-zero fixture task (issues 20 and 21): when the model has the CLI replace /logs/agent with a link to a host
 * folder, the host writes trajectory.json and the CLI's output into the trial folder and never through the link;
 * when the model endpoint answers /models but fails every completion, the trial is errored, not scored 0.
 */
import { cp, lstat, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliAgentMounts } from '../../src/cli-agents/agent-installation.js';
import { cliAgent } from '../../src/cli-agents/cli-agent-registry.js';
import { agentsCacheDirectory } from '../../src/cli-agents/installable-package.js';
import { corralCacheDirectory } from '../../src/core/cache-directory.js';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { TASK_BASE_IMAGE_DEFINITIONS } from '../../src/sandbox/docker/image-definition.js';
import { type ChatCompletionRequestBody, type ModelReply, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { readResults, runCorral } from './runner-cli.js';

const dockerAvailable = await backendAvailable('docker');
const TEMPLATE = resolve(import.meta.dirname, '../fixtures/terminal/hostile/always-zero');
const agent = cliAgent(process.env.CORRAL_TEST_CLI_AGENT ?? 'codex');
const cache = agentsCacheDirectory(corralCacheDirectory(process.env.CORRAL_CACHE_DIR));
const SHELL_TOOLS = ['exec_command', 'shell', 'run_shell_command', 'Bash', 'bash'];

/** Calls the CLI's own shell tool with `line` once, then answers; tool-less requests (titles) get a title. */
function runOnce(line: string) {
  return (request: ChatCompletionRequestBody): ModelReply => {
    const tools = request.tools ?? [];
    if (tools.length === 0) return { kind: 'text', content: 'A title' };
    if (request.messages.at(-1)?.role === 'tool') return { kind: 'text', content: 'done.' };
    const shell = SHELL_TOOLS.map((name) => tools.find((tool) => tool.function.name === name)).find((tool) => tool !== undefined);
    if (!shell) return { kind: 'text', content: 'no shell tool' };
    const properties = (shell.function.parameters as { properties?: Record<string, { type?: string }> } | undefined)?.properties;
    const args =
      properties?.command?.type === 'array' ? { command: ['bash', '-lc', line] } : properties?.cmd ? { cmd: line } : { command: line, description: 'run it' };
    return { kind: 'tool-calls', content: 'Running it.', toolCalls: [{ name: shell.function.name, arguments: args }] };
  };
}

describe.runIf(dockerAvailable)(`corral eval terminal --agent ${agent.name}: a hostile model and a failing one`, () => {
  let workDirectory: string;
  let task: string;

  beforeAll(async () => {
    await buildImages({ offline: true, definitions: TASK_BASE_IMAGE_DEFINITIONS, log: (line) => console.log(`[images] ${line}`) });
    await cliAgentMounts(agent, cache); // installed by setup.sh; throws CLI_AGENT_ERR_NOT_INSTALLED otherwise
    workDirectory = await mkdtemp(join(tmpdir(), 'corral-terminal-cli-hostile-'));
    task = join(workDirectory, 'always-zero');
    await cp(TEMPLATE, task, { recursive: true });
  }, 900_000);

  afterAll(async () => {
    if (workDirectory) await rm(workDirectory, { recursive: true, force: true });
  });

  const evalArgs = (baseURL: string, out: string) => [
    'eval',
    'terminal',
    '--tasks',
    task,
    '--agent',
    agent.name,
    '--model',
    'scripted-model',
    '--base-url',
    baseURL,
    '--out',
    out,
    '--no-progress',
  ];

  it('/logs/agent made a link to a host folder: trajectory.json and the CLI output land in the trial folder, the host folder is untouched', async () => {
    const hostDirectory = join(workDirectory, 'host');
    await mkdir(hostDirectory);
    for (const name of ['trajectory.json', 'cli-stdout.txt', 'cli-stderr.txt']) await writeFile(join(hostDirectory, name), 'precious\n');
    const model = await startScriptedModelServer(
      runOnce(`python3 -c "import os, shutil; shutil.rmtree('/logs/agent'); os.symlink('${hostDirectory}', '/logs/agent')"`),
    );
    try {
      const out = join(workDirectory, 'link-run');
      const result = await runCorral(evalArgs(model.baseURL, out));
      const [record] = readResults(out);
      expect({ code: result.code, reward: record?.reward, error: record?.error }, result.stderr.slice(-3000)).toEqual({ code: 0, reward: 0, error: null });
      for (const name of ['trajectory.json', 'cli-stdout.txt', 'cli-stderr.txt']) expect(await readFile(join(hostDirectory, name), 'utf8')).toBe('precious\n');
      const agentDirectory = join(out, (record!.info as { trial_name: string }).trial_name, 'agent');
      expect((await lstat(agentDirectory)).isDirectory()).toBe(true);
      expect(await readdir(agentDirectory)).toEqual(expect.arrayContaining(['trajectory.json', 'cli-stdout.txt', 'cli-stderr.txt']));
    } finally {
      await model.close();
    }
  }, 450_000);

  it('a model endpoint that fails every completion errors the trial (reward null, boundary model, exit 1)', async () => {
    const model = await startScriptedModelServer(() => ({ kind: 'http-error', status: 500, message: 'the model crashed' }));
    try {
      const out = join(workDirectory, 'failing-run');
      const result = await runCorral(evalArgs(model.baseURL, out));
      const [record] = readResults(out);
      expect({ code: result.code, reward: record?.reward, boundary: record?.error?.boundary }, result.stderr.slice(-3000)).toEqual({
        code: 1,
        reward: null,
        boundary: 'model',
      });
      expect(record!.error!.code).toMatch(/^MODEL_ERR_/);
    } finally {
      await model.close();
    }
  }, 450_000);
});
