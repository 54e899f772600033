/**
 * Runs every folder under examples/ and exits non-zero if any fails (STYLE principle 20: examples run in CI).
 * Each folder needs a runner below; a folder without one fails the run, so a new example cannot be skipped
 * silently. Uses the process backend (no Docker needed) and `corral serve` on a free port where a server is needed.
 *
 *   npm run examples            # all of them
 *   npm run examples mcp-client # just one
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startScriptedModelServer } from '../src/testing/scripted-model-server.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'bin', 'corral.mjs');
const EXAMPLES = join(ROOT, 'examples');
/** A sandbox per rollout starts in well under a second here; minutes mean something hangs. */
const STEP_TIMEOUT_MS = 180_000;

const RUNNERS: Readonly<Record<string, (scratch: string) => Promise<void>>> = {
  'best-of-n': runBestOfN,
  'custom-env': runCustomEnvironment,
  'env-package': runEnvironmentPackage,
  'mcp-client': runMcpClient,
  bugfix: runBugfix,
  'mixed-images': runMixedImages,
  'train-grpo': runTrainGrpo,
  wordle: runWordle,
  'word-game': runWordGame,
  'customer-service': runCustomerService,
  nim: runNim,
};

/** The environment under its reference agent scores 1.0 and under its guessing agent 0.0, with no errors. */
async function runCustomEnvironment(scratch: string): Promise<void> {
  for (const [agent, expectedReward] of [
    ['reference', 1],
    ['guess', 0],
  ] as const) {
    const out = join(scratch, agent);
    await run(process.execPath, [
      CLI,
      'eval',
      join(EXAMPLES, 'custom-env', 'index.ts'),
      '--agent',
      agent,
      '--backend',
      'process',
      '--out',
      out,
      '--no-progress',
    ]);
    const metadata = JSON.parse(readFileSync(join(out, 'metadata.json'), 'utf8')) as {
      avg_reward: number | null;
      errored: number;
      rollouts: number;
      status: string;
    };
    if (metadata.status !== 'complete' || metadata.errored !== 0 || metadata.avg_reward !== expectedReward) {
      throw new Error(`--agent ${agent}: expected a complete run, 0 errored, avg_reward ${expectedReward}; metadata.json says ${JSON.stringify(metadata)}`);
    }
    console.log(`  --agent ${agent}: ${metadata.rollouts} rollouts, avg_reward ${metadata.avg_reward}`);
  }
}

/**
 * The environment as a user shares it: `npm pack` of the folder, `corral env install` of the tarball into a scratch
 * cache, `corral env list` and `corral env show` name it, and `corral eval <package name>` scores 1.0 with its
 * solver agent (setup wrote the secret, the custom tool read it) and 0.0 with its guesser, with no errors.
 */
async function runEnvironmentPackage(scratch: string): Promise<void> {
  const env = { ...process.env, CORRAL_MIN_IDLE: '0', CORRAL_CACHE_DIR: join(scratch, 'cache') };
  await run('npm', ['pack', '--pack-destination', scratch, join(EXAMPLES, 'env-package')], env);
  const tarball = join(
    scratch,
    readdirSync(scratch).find((name) => name.endsWith('.tgz'))!,
  );
  await run(process.execPath, [CLI, 'env', 'install', tarball], env);
  const list = await capture(process.execPath, [CLI, 'env', 'list'], env);
  if (!/^corral-env-vault\s+1\.0\.0\s+package/m.test(list)) throw new Error(`corral env list does not show corral-env-vault 1.0.0:\n${list}`);
  const show = JSON.parse(await capture(process.execPath, [CLI, 'env', 'show', 'corral-env-vault', '--json'], env)) as { tools: { name: string }[] };
  if (!show.tools.some((tool) => tool.name === 'unlock')) throw new Error(`corral env show lists no unlock tool: ${JSON.stringify(show)}`);
  console.log(`  installed, listed and shown: ${tarball.split('/').pop()}`);
  for (const [agent, expectedReward] of [
    ['solver', 1],
    ['guesser', 0],
  ] as const) {
    const out = join(scratch, agent);
    await run(
      process.execPath,
      [CLI, 'eval', 'corral-env-vault', '--agent', agent, '--env-args', '{"words":2}', '--backend', 'process', '--out', out, '--no-progress'],
      env,
    );
    const metadata = JSON.parse(readFileSync(join(out, 'metadata.json'), 'utf8')) as {
      avg_reward: number | null;
      errored: number;
      status: string;
      env_source: unknown;
    };
    if (metadata.status !== 'complete' || metadata.errored !== 0 || metadata.avg_reward !== expectedReward) {
      throw new Error(`--agent ${agent}: expected a complete run, 0 errored, avg_reward ${expectedReward}; metadata.json says ${JSON.stringify(metadata)}`);
    }
    console.log(
      `  corral eval corral-env-vault --agent ${agent}: avg_reward ${metadata.avg_reward}, env_source ${JSON.stringify(metadata.env_source).slice(0, 80)}...`,
    );
  }
}

/** Like run(), and returns stdout. */
function capture(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolveRun, reject) => {
    execFile(command, args, { cwd: ROOT, env, timeout: STEP_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
      else resolveRun(stdout);
    });
  });
}

/**
 * `corral eval` on an example module with one of its agents; checks the run completed with no errored rollout and
 * the mean reward the agent is written to get. Returns the results for further checks.
 */
async function evalExample(
  scratch: string,
  folder: string,
  agent: string,
  expectedReward: number,
  extra: string[] = [],
  label: string = agent,
): Promise<ExampleRecord[]> {
  const out = join(scratch, `${folder}-${label}`);
  await run(process.execPath, [CLI, 'eval', join(EXAMPLES, folder, 'index.ts'), '--agent', agent, '--out', out, '--no-progress', ...extra]);
  const metadata = JSON.parse(readFileSync(join(out, 'metadata.json'), 'utf8')) as {
    avg_reward: number | null;
    errored: number;
    rollouts: number;
    status: string;
  };
  if (metadata.status !== 'complete' || metadata.errored !== 0 || metadata.avg_reward !== expectedReward) {
    throw new Error(
      `${folder} --agent ${agent}: expected a complete run, 0 errored, avg_reward ${expectedReward}; metadata.json says ${JSON.stringify(metadata)}`,
    );
  }
  console.log(`  --agent ${agent} ${extra.join(' ')}: ${metadata.rollouts} rollouts, avg_reward ${metadata.avg_reward}`);
  return readFileSync(join(out, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ExampleRecord);
}

interface ExampleRecord {
  example_id: string;
  reward: number | null;
  events: { type: string; reason?: string | null }[];
  completion: { role: string; content: string | null }[];
  user_calls?: { model: string; content: string }[];
  user_usage?: { prompt_tokens: number; completion_tokens: number } | null;
  roles?: {
    role: string;
    model: string;
    reward: number | null;
    completion: { role: string; content: string | null }[];
    group: { mean: number | null } | null;
  }[];
}

/**
 * Wordle in dialogue, no tools: the openai agent against a scripted model on a scripted model server solves every
 * word from the environment's replies (each rollout ends 'done', reason 'solved'), and an agent that cannot take
 * those replies (a CLI agent) is refused before anything starts (exit 2).
 */
async function runWordGame(scratch: string): Promise<void> {
  const { wordGameModels } = await import('../examples/word-game/scripted-models.js');
  const server = await startScriptedModelServer(wordGameModels, { recordRequests: false });
  try {
    const model = (name: string) => ['--model', name, '--base-url', server.baseURL, '--backend', 'process'];
    const solved = await evalExample(scratch, 'word-game', 'openai', 1, model('player'), 'player');
    const reasons = solved.map((record) => record.events.find((event) => event.type === 'environment-done')?.reason);
    if (!reasons.every((reason) => reason === 'solved')) throw new Error(`every rollout should end with reason "solved", got ${reasons.join(', ')}`);
    if (!solved.every((record) => record.events.at(-1)?.reason === 'done')) throw new Error('every rollout should end "done" (respond ended it)');
    const refused = await run(process.execPath, [
      CLI,
      'eval',
      join(EXAMPLES, 'word-game', 'index.ts'),
      '--agent',
      'opencode',
      ...model('player'),
      '--out',
      join(scratch, 'refused'),
    ]).then(
      () => null,
      (error: Error) => error.message,
    );
    if (!refused || !/exited 2/.test(refused) || !refused.includes('ENV_ERR_REPLIES_UNSUPPORTED'))
      throw new Error(`--agent opencode should be refused with ENV_ERR_REPLIES_UNSUPPORTED (exit 2), got: ${refused ?? 'a run'}`);
    console.log('  --agent opencode: refused (ENV_ERR_REPLIES_UNSUPPORTED)');
  } finally {
    await server.close();
  }
}

/** The guess tool's per-rollout state and the stop predicate: the solver solves every word and each rollout ends 'stopped'. */
async function runWordle(scratch: string): Promise<void> {
  const solved = await evalExample(scratch, 'wordle', 'solver', 1, ['--backend', 'process', '--env-args', '{"difficulty":"hard","words":4}']);
  const ids = solved.map((record) => record.example_id).sort();
  if (ids.join() !== 'hard-0,hard-1,hard-2,hard-3') throw new Error(`--env-args should give the four hard words, got ${ids.join()}`);
  if (!solved.every((record) => record.events.at(-1)?.reason === 'stopped')) throw new Error('every solved rollout should end by the stop predicate');
  await evalExample(scratch, 'wordle', 'stubborn', 0, ['--backend', 'process']);
}

/**
 * A simulated customer who holds the account details, and tools over a database the rubric checks: the agent model
 * asks, looks up and changes the plan (1.0), the careless one changes the wrong account (0.0). Every record keeps the
 * customer's calls apart from the agent's (user_calls, user_usage); the stop marker never reaches the conversation.
 */
async function runCustomerService(scratch: string): Promise<void> {
  const { customerServiceModels } = await import('../examples/customer-service/scripted-models.js');
  const server = await startScriptedModelServer(customerServiceModels, { recordRequests: false });
  try {
    const args = (model: string) => [
      '--model',
      model,
      '--base-url',
      server.baseURL,
      '--backend',
      'process',
      '--env-args',
      JSON.stringify({ user_base_url: server.baseURL }),
    ];
    const served = await evalExample(scratch, 'customer-service', 'openai', 1, args('agent'), 'agent');
    for (const record of served) {
      const calls = record.user_calls ?? [];
      if (calls.length < 2 || !calls.every((call) => call.model === 'customer') || !(record.user_usage && record.user_usage.completion_tokens > 0))
        throw new Error(
          `${record.example_id}: expected the customer's calls and usage on the record, got ${JSON.stringify({ calls, usage: record.user_usage })}`,
        );
      if (record.completion.some((message) => message.content?.includes('###STOP###')))
        throw new Error(`${record.example_id}: the stop marker reached the conversation`);
    }
    console.log(`  customer calls per rollout: ${served.map((record) => record.user_calls!.length).join(', ')}`);
    await evalExample(scratch, 'customer-service', 'openai', 0, args('careless'), 'careless');
  } finally {
    await server.close();
  }
}

/**
 * Nim in self-play: one scripted model plays both roles through the openai agent; from every pile in the dataset the
 * first player wins. Every record keeps both roles' trajectories and rewards (first 1, second 0) and per-role groups.
 */
async function runNim(scratch: string): Promise<void> {
  const { nimModels } = await import('../examples/nim/scripted-models.js');
  const server = await startScriptedModelServer(nimModels, { recordRequests: false });
  try {
    const played = await evalExample(scratch, 'nim', 'openai', 1, ['--model', 'player', '--base-url', server.baseURL, '--backend', 'process'], 'player');
    for (const record of played) {
      const roles = record.roles ?? [];
      const summary = roles.map((role) => `${role.role}=${role.reward}`).join(' ');
      if (summary !== 'first=1 second=0') throw new Error(`${record.example_id}: expected first=1 second=0, got ${summary || 'no roles'}`);
      if (!roles.every((role) => role.completion.some((message) => message.role === 'assistant') && role.group?.mean === (role.role === 'first' ? 1 : 0)))
        throw new Error(`${record.example_id}: each role should have its own moves and group statistics: ${JSON.stringify(roles)}`);
    }
    console.log(`  two trajectories and two rewards on each of ${played.length} records (first=1 second=0)`);
    // A model per role: the first role played by a beginner loses every game (avg_reward is the first role's).
    const flags = ['--model', 'player', '--model-for', 'first=beginner', '--base-url', server.baseURL, '--backend', 'process'];
    const lost = await evalExample(scratch, 'nim', 'openai', 0, flags, 'beginner');
    for (const record of lost) {
      const summary = (record.roles ?? []).map((role) => `${role.role}:${role.model}=${role.reward}`).join(' ');
      if (summary !== 'first:beginner=0 second:player=1') throw new Error(`${record.example_id}: expected first:beginner=0 second:player=1, got ${summary}`);
    }
    const refused = await run(process.execPath, [
      CLI,
      'eval',
      join(EXAMPLES, 'nim', 'index.ts'),
      ...flags.map((flag) => (flag === 'first=beginner' ? 'third=beginner' : flag)),
      '--out',
      join(scratch, 'nim-refused'),
    ]).then(
      () => null,
      (error: Error) => error.message,
    );
    if (!refused || !/exited 2/.test(refused) || !refused.includes('CFG_ERR_INVALID') || !refused.includes('no role third'))
      throw new Error(`--model-for third=beginner should be refused with CFG_ERR_INVALID (exit 2), got: ${refused ?? 'a run'}`);
    console.log('  --model-for first=beginner: the beginner loses every game; --model-for third=...: refused (CFG_ERR_INVALID)');
  } finally {
    await server.close();
  }
}

/** Setup, the checker tool, the code-block parser and the async dataset: the fixer passes every check, the unchanged module none. */
async function runBugfix(scratch: string): Promise<void> {
  await evalExample(scratch, 'bugfix', 'fixer', 1, ['--backend', 'process']);
  await evalExample(scratch, 'bugfix', 'unchanged', 0, ['--backend', 'process', '--env-args', '{"count":2}', '-n', '1']);
}

/** Per-example images need containers: corral/python-sci for the numeric tasks, corral/python for the rest. */
async function runMixedImages(scratch: string): Promise<void> {
  await evalExample(scratch, 'mixed-images', 'reference', 1, ['--backend', 'docker']);
}

/** Both clients against a real `corral serve` with a token, which must then shut down cleanly on SIGTERM. */
async function runMcpClient(): Promise<void> {
  const token = randomBytes(12).toString('hex');
  const server = await startServe(token);
  const env = { ...process.env, CORRAL_URL: server.baseUrl, CORRAL_TOKEN: token };
  let clientFailure: unknown;
  try {
    await run(process.execPath, ['--import', 'tsx', join(EXAMPLES, 'mcp-client', 'client.ts')], env);
    console.log('  client.ts: ok');
    await run('python3', [join(EXAMPLES, 'mcp-client', 'client.py')], env);
    console.log('  client.py: ok');
  } catch (error) {
    clientFailure = error;
  }
  // The server is stopped whatever the clients did; a client's failure is the more useful report.
  const code = await server.stop();
  if (clientFailure) throw clientFailure;
  if (code !== 0) throw new Error(`corral serve exited ${code} on SIGTERM`);
}

/**
 * A short run of the GRPO trainer against `corral serve --env` with a token: every rollout scored, every sampled
 * logprob recomputed exactly, the series left in the runs folder. (test/e2e/train-grpo.test.ts runs it long enough
 * to see the reward rise.)
 */
async function runTrainGrpo(scratch: string): Promise<void> {
  const token = randomBytes(12).toString('hex');
  const runs = join(scratch, 'runs');
  const server = await startServe(token, ['--env', join(EXAMPLES, 'train-grpo', 'env.ts'), '--view-dir', runs]);
  let output = '';
  try {
    const steps = 4;
    output = await capture('/usr/bin/python3', [join(EXAMPLES, 'train-grpo', 'train.py'), '--corral', server.baseUrl, '--steps', String(steps)], {
      ...process.env,
      CORRAL_TOKEN: token,
    });
    const result = JSON.parse(output.trim().split('\n').at(-1)!) as {
      steps: number;
      errored: number;
      max_logprob_delta: number;
      sampled_tokens_checked: number;
    };
    if (result.steps !== steps || result.errored !== 0 || !(result.sampled_tokens_checked > 0) || !(result.max_logprob_delta <= 1e-4)) {
      throw new Error(
        `expected ${steps} steps, none errored, recomputed logprobs within 1e-4; the trainer says ${JSON.stringify({ ...result, history: undefined })}`,
      );
    }
    const seriesSteps = readFileSync(join(runs, 'series', 'train-grpo', 'steps.jsonl'), 'utf8')
      .trim()
      .split('\n');
    if (seriesSteps.length !== steps) throw new Error(`runs/series/train-grpo/steps.jsonl should have ${steps} lines, has ${seriesSteps.length}`);
    console.log(`  ${steps} steps, max |recomputed - recorded logprob| ${result.max_logprob_delta} over ${result.sampled_tokens_checked} sampled tokens`);
  } finally {
    await server.stop();
  }
}

/**
 * Best-of-n at turn 2 with episode forks, driven by the Python client against `corral serve --env` and a scripted
 * sampling model (token ids on): every child starts from the parent's two turns (messages and token ids, in its record
 * and its training sample), carries the fork's lineage, continues with its own seed, and the best is the child with
 * the highest reward (the seed whose third turn lands on the target).
 */
async function runBestOfN(): Promise<void> {
  const { bestOfNModels, THIRD_TURN_ADDS } = await import('../examples/best-of-n/scripted-models.js');
  const model = await startScriptedModelServer(bestOfNModels, { recordRequests: false, template: 'keeps-history' });
  const token = randomBytes(12).toString('hex');
  const server = await startServe(token, ['--env', join(EXAMPLES, 'best-of-n', 'env.ts')]);
  try {
    const output = await capture(
      '/usr/bin/python3',
      [join(EXAMPLES, 'best-of-n', 'search.py'), '--corral', server.baseUrl, '--model-url', model.baseURL, '--fork-at', '2', '--n', '4'],
      { ...process.env, CORRAL_TOKEN: token },
    );
    const result = JSON.parse(output.trim().split('\n').at(-1)!) as BestOfNResult;
    const { parent, children } = result;
    if (parent.turns !== 2 || parent.tokens.length !== 2)
      throw new Error(`the parent should be forked at turn 2 with two turns of token ids: ${JSON.stringify(parent)}`);
    if (children.length !== 4 || new Set(children.map((child) => child.seed)).size !== 4) throw new Error(`expected 4 children with distinct seeds`);
    const first = parent.tokens[0]!;
    for (const child of children) {
      if (JSON.stringify(child.messages.slice(0, parent.messages.length)) !== JSON.stringify(parent.messages))
        throw new Error(`child ${child.id} does not start with the parent's two turns`);
      if (JSON.stringify(child.lineage) !== JSON.stringify({ kind: 'fork', source_record: parent.id, from_turn: 3 }))
        throw new Error(`child ${child.id} should carry the fork's lineage, has ${JSON.stringify(child.lineage)}`);
      const sample = child.samples[0];
      const sharedIds = first.completion_token_ids;
      if (child.samples.length !== 1 || JSON.stringify(sample?.prompt_ids) !== JSON.stringify(first.prompt_token_ids))
        throw new Error(`child ${child.id} should have one training sample starting from the parent's prompt ids`);
      if (JSON.stringify(sample!.completion_ids.slice(0, sharedIds.length)) !== JSON.stringify(sharedIds))
        throw new Error(`child ${child.id}'s sample should continue the parent's first sampled ids`);
      // 10 after the shared prefix, plus this seed's third turn; the answer states it, the reward is its closeness.
      const total = 10 + THIRD_TURN_ADDS[child.seed]!;
      const reward = Math.max(0, 1 - Math.abs(20 - total) / 20);
      if (child.answer !== String(total) || Math.abs(child.reward - reward) > 1e-9)
        throw new Error(`child ${child.id} (seed ${child.seed}) should answer ${total} for reward ${reward}, got ${child.answer} / ${child.reward}`);
    }
    const best = children.reduce((winner, child) => (child.reward > winner.reward ? child : winner));
    if (result.best !== best.id || best.reward !== 1) throw new Error(`the best child should be ${best.id} (reward 1), the search chose ${result.best}`);
    console.log(`  4 children from turn 2, rewards ${children.map((child) => child.reward).join(', ')}; best: seed ${best.seed}`);
  } finally {
    await server.stop();
    await model.close();
  }
}

interface BestOfNResult {
  parent: { id: string; turns: number; messages: unknown[]; tokens: { prompt_token_ids: number[]; completion_token_ids: number[] }[] };
  children: {
    id: string;
    seed: number;
    reward: number;
    answer: string | null;
    lineage: unknown;
    messages: unknown[];
    samples: { prompt_ids: number[]; completion_ids: number[] }[];
  }[];
  best: string;
}

async function startServe(token: string, extraArgs: string[] = []): Promise<{ baseUrl: string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--host', '127.0.0.1', '--port', '0', '--backend', 'process', '--token', token, ...extraArgs], {
    env: { ...process.env, CORRAL_MIN_IDLE: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  let log = '';
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`corral serve did not start in 60 s:\n${log}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    });
    void exited.then((code) => reject(new Error(`corral serve exited ${code} before listening:\n${log}`)));
  });
  return {
    baseUrl,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Runs a command to completion; throws with its output when it exits non-zero or overruns STEP_TIMEOUT_MS. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolveRun, reject) => {
    const child: ChildProcess = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), STEP_TIMEOUT_MS);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolveRun();
      else reject(new Error(`${command} ${args.join(' ')} exited ${code ?? signal}:\n${output}`));
    });
  });
}

async function main(): Promise<void> {
  const folders = readdirSync(EXAMPLES, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const wanted = process.argv.slice(2);
  const selected = wanted.length > 0 ? folders.filter((name) => wanted.includes(name)) : folders;
  const failures: string[] = [];
  for (const name of selected) {
    const runner = RUNNERS[name];
    console.log(`examples/${name}`);
    const scratch = mkdtempSync(join(tmpdir(), `corral-example-${name}-`));
    const startedAt = performance.now();
    try {
      if (!runner) throw new Error(`no runner for examples/${name}: add one to scripts/run-examples.ts`);
      await runner(scratch);
      console.log(`  passed in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
    } catch (error) {
      failures.push(name);
      console.error(`  FAILED: ${(error as Error).message}`);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  const missing = wanted.filter((name) => !folders.includes(name));
  if (missing.length > 0) failures.push(...missing.map((name) => `${name} (no such folder)`));
  console.log(failures.length === 0 ? `${selected.length} example(s) passed` : `failed: ${failures.join(', ')}`);
  process.exitCode = failures.length === 0 ? 0 : 1;
}

await main();
