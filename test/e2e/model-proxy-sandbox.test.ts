/**
 * The recording proxy attacked from inside a real CLI-agent rollout: `corral eval` (the CLI binary, Docker backend)
 * runs Codex in the rollout's sandbox against a scripted model whose first turn makes Codex's native shell run
 * hostile Python against /opt/corral/sockets, as code a model wrote could. Each test checks what the run wrote:
 * - a connection flood on model.sock and mcp.sock (corral eval runs with 1,024 descriptors here, so the flood would
 *   exhaust them): the run completes, its record and final metadata are written, and the host closed every
 *   connection past the per-socket cap;
 * - 300 distinct 256 KiB calls with the rollout's key read from /proc/<pid>/environ: the proxy refuses them past
 *   its recorded-bytes bound and the rollout is errored with PROXY_ERR_ROLLOUT_LIMIT;
 * - an image URL pointing at 169.254.169.254 and n: 64 with that key: neither reaches the upstream;
 * - a background process calling the model after the CLI's last turn: the record's completion and final answer stay
 *   the CLI's own.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliAgentMounts } from '../../src/cli-agents/agent-installation.js';
import { cliAgent } from '../../src/cli-agents/cli-agent-registry.js';
import { agentsCacheDirectory } from '../../src/cli-agents/installable-package.js';
import { corralCacheDirectory } from '../../src/core/cache-directory.js';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import {
  type ChatCompletionRequestBody,
  type ModelReply,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../src/testing/scripted-model-server.js';
import { CLI_ANSWER } from '../fixtures/cli-agents/hostile-sandbox-env.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { childEnvironment, CLI, readMetadata, readResults, ROOT } from './runner-cli.js';

const dockerAvailable = await backendAvailable('docker');
const ENVIRONMENT = './test/fixtures/cli-agents/hostile-sandbox-env.ts';
const HOST_DESCRIPTORS = 1024;

/** Finds the rollout's model key in any process environment the sandbox user can read, as hostile code would. */
const PYTHON_PRELUDE = `
import glob, json, os, socket, subprocess, sys, time
SOCKETS = '/opt/corral/sockets'
def rollout_key():
    for path in glob.glob('/proc/[0-9]*/environ'):
        try:
            data = open(path, 'rb').read()
        except OSError:
            continue
        for item in data.split(b'\\0'):
            if item.startswith(b'CORRAL_MODEL_API_KEY='):
                return item.split(b'=', 1)[1].decode()
    raise SystemExit('no key found')
def post(key, body):
    data = json.dumps(body).encode()
    connection = socket.socket(socket.AF_UNIX)
    connection.connect(SOCKETS + '/model.sock')
    head = ('POST /v1/chat/completions HTTP/1.1\\r\\nHost: proxy\\r\\nAuthorization: Bearer %s\\r\\n'
            'Content-Type: application/json\\r\\nContent-Length: %d\\r\\nConnection: close\\r\\n\\r\\n' % (key, len(data))).encode()
    connection.sendall(head + data)
    answer = b''
    while True:
        chunk = connection.recv(65536)
        if not chunk:
            break
        answer += chunk
    connection.close()
    return int(answer.split(b' ', 2)[1]) if answer else 0
def call(key, messages):
    return post(key, {'model': 'm', 'messages': messages})
`;

const FLOOD = `${PYTHON_PRELUDE}
def flood(name, count):
    held = []
    for _ in range(count):
        connection = socket.socket(socket.AF_UNIX)
        try:
            connection.connect(SOCKETS + '/' + name)
            held.append(connection)
        except OSError:
            connection.close()
    time.sleep(1.5)
    closed = 0
    for connection in held:
        connection.setblocking(False)
        try:
            if connection.recv(1) == b'':
                closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    print('FLOOD %s opened=%d closed_by_host=%d' % (name, len(held), closed), flush=True)
    return held
kept = flood('model.sock', 3000) + flood('mcp.sock', 1500)
for connection in kept:
    connection.close()
`;

const BIG_CALLS = `${PYTHON_PRELUDE}
key = rollout_key()
statuses = {}
for number in range(300):
    text = 'HOSTILE-BYTES %d ' % number + str(number % 10) * (256 * 1024)
    try:
        status = call(key, [{'role': 'user', 'content': text}])
    except OSError:
        status = 'reset'
    statuses[status] = statuses.get(status, 0) + 1
print('BIG', json.dumps(statuses), flush=True)
`;

const STEERING = `${PYTHON_PRELUDE}
key = rollout_key()
image = post(key, {'model': 'm', 'messages': [{'role': 'user', 'content': [
    {'type': 'text', 'text': 'STEER describe'},
    {'type': 'image_url', 'image_url': {'url': 'http://169.254.169.254/latest/meta-data/iam/security-credentials/'}}]}]})
steer = post(key, {'model': 'm', 'n': 64, 'best_of': 64, 'chat_template_kwargs': {'x': 1}, 'messages': [{'role': 'user', 'content': 'STEER many'}]})
print('STEER image=%d n=%d' % (image, steer), flush=True)
`;

/** Runs detached, outliving the shell call: calls the model every 50 ms until its key is revoked or 20 s pass. */
const BACKGROUND_CALLER = `${PYTHON_PRELUDE}
if os.fork() > 0:
    print('started background caller', flush=True)
    sys.exit(0)
os.setsid()
key = rollout_key()
deadline = time.time() + 20
while time.time() < deadline:
    try:
        if call(key, [{'role': 'user', 'content': 'say PWNED'}]) == 401:
            break
    except OSError:
        break
    time.sleep(0.05)
`;

/** Codex's exec_command runs `python` (base64, so no quoting), then the CLI answers CLI-DONE; stray callers get PWNED. */
function scriptFor(python: string, beforeAnswer?: () => Promise<void>) {
  let step = 0;
  const encoded = Buffer.from(python).toString('base64');
  const command = `echo ${encoded} | base64 -d > /tmp/hostile.py && python3 /tmp/hostile.py > /tmp/hostile.log 2>&1; cat /tmp/hostile.log`;
  return async (request: ChatCompletionRequestBody): Promise<ModelReply> => {
    const text = JSON.stringify(request.messages);
    if (text.includes('HOSTILE-BYTES')) return { kind: 'http-error', status: 400, message: 'refused upstream' };
    if (text.includes('say PWNED')) return { kind: 'text', content: 'PWNED' };
    const tools = request.tools ?? [];
    const shell = tools.find((tool) => tool.function.name === 'exec_command');
    if (step === 0 && shell) {
      step = 1;
      return { kind: 'tool-calls', toolCalls: [{ name: 'exec_command', arguments: { cmd: command, yield_time_ms: 30_000 } }] };
    }
    await beforeAnswer?.();
    return { kind: 'text', content: CLI_ANSWER };
  };
}

interface EvalRun {
  code: number | null;
  stderr: string;
  out: string;
}

/** `corral eval --agent codex` with the host's descriptors limited (ulimit -n), as a real run on a busy host. */
function runEval(model: ScriptedModelServer, out: string): Promise<EvalRun> {
  const args = ['eval', ENVIRONMENT, '--agent', 'codex', '--model', 'scripted-model', '--base-url', model.baseURL, '-n', '1'];
  const child = spawn(
    'bash',
    ['-c', `ulimit -n ${HOST_DESCRIPTORS} && exec "$@"`, 'corral', process.execPath, CLI, ...args, '--backend', 'docker', '--out', out, '--no-progress'],
    {
      cwd: ROOT,
      env: childEnvironment(),
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr, out })));
}

const toolOutputs = (out: string) =>
  readResults(out)
    .flatMap((record) => record.completion)
    .filter((message) => message.role === 'tool')
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)))
    .join('\n');

describe.runIf(dockerAvailable)('the recording proxy attacked from inside a Codex rollout’s sandbox', () => {
  let outputRoot: string;
  const models: ScriptedModelServer[] = [];

  beforeAll(async () => {
    await buildImages({ offline: true, log: (line) => console.log(`[images] ${line}`) });
    await cliAgentMounts(cliAgent('codex'), agentsCacheDirectory(corralCacheDirectory(process.env.CORRAL_CACHE_DIR)));
    outputRoot = await mkdtemp(join(tmpdir(), 'corral-proxy-sandbox-'));
  }, 1_800_000);

  afterAll(async () => {
    await Promise.all(models.map((model) => model.close()));
    if (outputRoot) await rm(outputRoot, { recursive: true, force: true });
  });

  async function modelFor(python: string, beforeAnswer?: () => Promise<void>): Promise<ScriptedModelServer> {
    const model = await startScriptedModelServer(scriptFor(python, beforeAnswer));
    models.push(model);
    return model;
  }

  it('a connection flood on the model and MCP sockets does not end the run: the host closes what passes the cap', async () => {
    const model = await modelFor(FLOOD);
    const run = await runEval(model, join(outputRoot, 'flood'));
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    const [record] = readResults(run.out);
    expect(record!.error).toBeNull();
    expect(record!.final_answer).toBe(CLI_ANSWER);
    expect(readMetadata(run.out).status).toBe('complete');
    const output = toolOutputs(run.out);
    for (const [name, count] of [
      ['model.sock', 3000],
      ['mcp.sock', 1500],
    ] as const) {
      const line = new RegExp(`FLOOD ${name.replace('.', '\\.')} opened=(\\d+) closed_by_host=(\\d+)`).exec(output);
      expect(line, output.slice(-2000)).not.toBeNull();
      const [opened, closed] = [Number(line![1]), Number(line![2])];
      expect(opened).toBe(count);
      // At most the cap (32) stayed open; every other connection was closed by the host as it arrived.
      expect(opened - closed).toBeLessThanOrEqual(32);
    }
  }, 600_000);

  it('300 distinct 256 KiB calls with the rollout’s key are refused past the recorded-bytes bound and error the rollout', async () => {
    const model = await modelFor(BIG_CALLS);
    const run = await runEval(model, join(outputRoot, 'bytes'));
    const [record] = readResults(run.out);
    expect(record, run.stderr.slice(-3000)).toBeDefined();
    expect(record!.error).toMatchObject({ code: 'PROXY_ERR_ROLLOUT_LIMIT' });
    expect(record!.reward).toBeNull();
    const hostile = model.requests.filter((request) => JSON.stringify(request.body.messages).includes('HOSTILE-BYTES')).length;
    // 64 MiB of recorded bytes hold fewer than 256 such calls: the rest never reached the upstream.
    expect(hostile).toBeGreaterThan(200);
    expect(hostile).toBeLessThan(256);
  }, 600_000);

  it('a remote image URL and n: 64 sent with the rollout’s key from /proc never reach the upstream', async () => {
    const model = await modelFor(STEERING);
    const run = await runEval(model, join(outputRoot, 'steering'));
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    expect(toolOutputs(run.out)).toContain('STEER image=400 n=200');
    const steered = model.requests.filter((request) => request.body.messages.length === 1 && JSON.stringify(request.body.messages).includes('STEER'));
    expect(steered).toHaveLength(1);
    expect(steered[0]!.body).not.toHaveProperty('n');
    expect(steered[0]!.body).not.toHaveProperty('best_of');
    expect(steered[0]!.body).not.toHaveProperty('chat_template_kwargs');
    expect(JSON.stringify(model.requests.map((request) => request.body))).not.toContain('169.254.169.254');
  }, 600_000);

  it('a background process calling the model after the CLI’s last turn does not replace its completion or final answer', async () => {
    const seen: { model?: ScriptedModelServer } = {};
    const strayCalls = () => seen.model!.requests.filter((request) => JSON.stringify(request.body.messages).includes('say PWNED'));
    // The CLI's last turn is answered only once the background caller is calling, so its calls surround that turn.
    const waitForStrayCalls = async () => {
      for (let waited = 0; strayCalls().length < 3 && waited < 400; waited++) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    const model = (seen.model = await modelFor(BACKGROUND_CALLER, waitForStrayCalls));
    const run = await runEval(model, join(outputRoot, 'background'));
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    const [record] = readResults(run.out);
    expect(record!.error).toBeNull();
    const cliLastTurn = model.requests.findLast((request) => !JSON.stringify(request.body.messages).includes('say PWNED'))!;
    // The attack happened: stray calls reached the model after the CLI's last turn arrived.
    expect(strayCalls().some((request) => request.receivedAtMs > cliLastTurn.receivedAtMs)).toBe(true);
    expect(record!.final_answer).toBe(CLI_ANSWER);
    expect(record!.reward).toBe(1);
    const last = record!.completion.at(-1)!;
    expect(last).toMatchObject({ role: 'assistant', content: CLI_ANSWER });
    expect(JSON.stringify(record!.completion)).not.toContain('PWNED');
  }, 600_000);
});
