/**
 * The Python client (clients/python) as a trainer uses it: `pip install`ed from its folder with the system's stock
 * pip and setuptools (no package index: --no-index --no-build-isolation), then its unittest suite run against a real
 * `corral serve --env <the tally fixture> --env <the guess fixture>` child process (process backend) and a scripted
 * model: rollouts streamed from a built-in and the custom environment, episodes, sandboxes, MCP calls, typed errors,
 * episodes stepped turn by turn over HTTP and over /ws/episodes, which must reach the reward `corral eval` (run
 * here with the same scripted model) gave the same conversation, and an episode forked at turn 2 into 4 children
 * that continue from its messages and token ids (episode.fork).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChatCompletionRequestBody,
  type ModelReply,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../src/testing/scripted-model-server.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { gate } from '../helpers/test-gates.js';
import { TALLY_ENV } from './episodes-server.js';
import { runCorral } from './runner-cli.js';
import { waitFor } from './runner-rollout-server.js';
import { type ServeProcess, startServe } from './serve-cli-process.js';

const CLIENT_DIR = resolve(import.meta.dirname, '../../clients/python');
const IMPORT_MARKER_ENV = resolve(import.meta.dirname, '../fixtures/episodes/import-marker-env.ts');
const IMPORT_MARKER = resolve(import.meta.dirname, '../fixtures/episodes/.imported');
const GUESS_ENV = resolve(import.meta.dirname, '../fixtures/episodes/guess-env.ts');
/** Debian's python3 with python3-pip, python3-setuptools and python3-wheel (scripts/setup.sh installs them). */
const PYTHON = '/usr/bin/python3';
const TOKEN = 'python-client-token';

const pipProbe = spawnSync(PYTHON, ['-c', 'import setuptools, wheel, pip'], { stdio: 'ignore' });
const pythonReady = gate('python3 with pip, setuptools and wheel', pipProbe.status === 0 ? null : `${PYTHON} -c 'import setuptools, wheel, pip' failed`);
const processBackend = await backendAvailable('process');

/**
 * Calls peek once (twice when the prompt says "Peek twice": the fork test's two turns), then answers with what the
 * tool returned (the tally environment's secret word). Offered no tools (the guess environment), it guesses 5, then 7
 * when told "higher".
 */
function script(body: ChatCompletionRequestBody): ModelReply {
  if (!body.tools?.length) return { kind: 'text', content: body.messages.at(-1)?.content === 'higher' ? '7' : '5' };
  const toolResults = body.messages.filter((message) => message.role === 'tool');
  const peeks = body.messages.some((message) => message.role === 'user' && String(message.content).startsWith('Peek twice')) ? 2 : 1;
  if (toolResults.length >= peeks) return { kind: 'text', content: String(toolResults[0]!.content) };
  return { kind: 'tool-calls', toolCalls: [{ name: 'peek', arguments: {} }] };
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolveRun({ status, stdout, stderr }));
  });
}

describe.runIf(pythonReady && processBackend)('the Python client against corral serve --env', () => {
  let scratch: string;
  let model: ScriptedModelServer;
  let serve: ServeProcess;
  let evalRun: string;
  let evaluated: Promise<{ code: number | null; stdout: string; stderr: string }[]>;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'corral-python-client-'));
    // The template gives token ids and logprobs, so the client's samples() has something to read.
    model = await startScriptedModelServer(script, { template: 'keeps-history' });
    serve = startServe(['--backend', 'process', '--port', '0', '--token', TOKEN, '--env', TALLY_ENV, '--env', GUESS_ENV], {
      CORRAL_CACHE_DIR: join(scratch, 'cache'),
      TALLY_CLEANUP_LOG: join(scratch, 'cleanup.log'),
    });
    // The conversations the step tests replay, and the rewards they must reach: run while serve starts.
    evalRun = join(scratch, 'eval');
    const evaluate = (environment: string, out: string) =>
      runCorral(
        ['eval', environment, '--model', 'scripted', '--base-url', model.baseURL, '--backend', 'process', '--out', join(evalRun, out), '--no-progress'],
        {
          CORRAL_CACHE_DIR: join(scratch, 'cache-eval'),
        },
      );
    evaluated = Promise.all([evaluate(TALLY_ENV, 'tally'), evaluate(GUESS_ENV, 'guess')]);
    await waitFor(
      () => serve.address() !== undefined || serve.child.exitCode !== null,
      60_000,
      () => serve.stderr(),
    );
    if (!serve.address()) throw new Error(`corral serve did not start: ${serve.stderr()}`);
  });

  afterAll(async () => {
    serve?.kill();
    await serve?.exited;
    await model?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('installs with pip from its folder and passes its unittest suite', async () => {
    // A copy: pip builds in the source folder, and the checkout should not collect build/ and egg-info.
    const source = join(scratch, 'client-source');
    cpSync(CLIENT_DIR, source, { recursive: true, filter: (path) => !path.includes('__pycache__') });
    const target = join(scratch, 'site');
    // Not spawnSync: the evaluations started in beforeAll wait on the scripted model in this event loop.
    const install = await run(PYTHON, ['-m', 'pip', 'install', '--no-index', '--no-build-isolation', '--quiet', '--target', target, source], {
      cwd: scratch,
      env: process.env,
    });
    expect(install.status, install.stderr).toBe(0);
    expect(existsSync(join(target, 'corral_client.py'))).toBe(true);

    // The summary on stdout names the error codes of any errored rollout.
    for (const evaluation of await evaluated) expect(evaluation.code, `${evaluation.stdout}\n${evaluation.stderr}`).toBe(0);

    // Not spawnSync: the scripted model answers from this process's event loop.
    const tests = await run(PYTHON, ['-m', 'unittest', 'discover', '-v', '-s', join(CLIENT_DIR, 'tests'), '-t', join(CLIENT_DIR, 'tests')], {
      cwd: scratch,
      env: {
        ...process.env,
        // Only the installed copy: the tests must not pass against the checkout's file by accident.
        PYTHONPATH: target,
        PYTHONDONTWRITEBYTECODE: '1',
        CORRAL_URL: serve.address()!,
        CORRAL_TOKEN: TOKEN,
        CORRAL_TEST_MODEL_URL: model.baseURL,
        CORRAL_TEST_IMPORT_MARKER: IMPORT_MARKER_ENV,
        CORRAL_TEST_EVAL_RESULTS: join(evalRun, 'tally', 'results.jsonl'),
        CORRAL_TEST_EVAL_GUESS_RESULTS: join(evalRun, 'guess', 'results.jsonl'),
      },
    });
    expect(tests.status, `${tests.stdout}\n${tests.stderr}`).toBe(0);
    expect(tests.stderr).toMatch(/Ran \d+ tests/);
    expect(tests.stderr).not.toMatch(/skipped/);
    expect(existsSync(IMPORT_MARKER)).toBe(false);
  }, 180_000);
});
