/**
 * Training samples from a CLI agent: OpenCode in a Docker sandbox behind corral's recording proxy, the scripted model
 * tokenising with its keeps-history template, `corral eval --samples`. OpenCode also asks for a title (a request
 * without tools, outside its conversation): that call is recorded (turns, usage) but never in a sample.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TrainingSample } from '../../src/runner/samples/training-sample.js';
import { completionIds, decodeText } from '../../src/testing/scripted-chat-template.js';
import { type ChatCompletionRequestBody, type ModelReply, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { MCP_MARKER, SHELL_MARKER } from '../fixtures/cli-agents/one-sandbox-env.js';
import { readResults, runCorral } from './runner-cli.js';

const ENVIRONMENT = './test/fixtures/cli-agents/one-sandbox-env.ts';
const TITLE = 'Marker title';
const PYTHON_CODE = `open('mcp-marker.txt', 'w').write(open('shell-marker.txt').read().strip() + '+python')\nprint(open('mcp-marker.txt').read())`;

/** A title for untooled requests; otherwise OpenCode's bash, then corral's python, then the answer. */
function script(request: ChatCompletionRequestBody): ModelReply {
  const tools = (request.tools ?? []).map((tool) => tool.function.name);
  if (tools.length === 0) return { kind: 'text', content: TITLE };
  const assistants = request.messages.filter((message) => message.role === 'assistant').length;
  if (assistants === 0)
    return {
      kind: 'tool-calls',
      content: 'Writing the marker.',
      toolCalls: [{ name: 'bash', arguments: { command: `echo ${SHELL_MARKER} > shell-marker.txt`, description: 'write a marker' } }],
    };
  if (assistants === 1)
    return { kind: 'tool-calls', toolCalls: [{ name: tools.find((name) => /(^|[_.])python$/.test(name))!, arguments: { code: PYTHON_CODE } }] };
  return { kind: 'text', content: `The tool read ${MCP_MARKER}.` };
}

const scratch = await mkdtemp(join(tmpdir(), 'corral-samples-cli-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('corral eval --agent opencode --samples', () => {
  it("samples the CLI's final conversation, one sample, the title request never in it", async () => {
    const model = await startScriptedModelServer(script, { template: 'keeps-history' });
    const out = join(scratch, 'run');
    try {
      const run = await runCorral([
        'eval',
        ENVIRONMENT,
        '--agent',
        'opencode',
        '--model',
        'scripted-model',
        '--base-url',
        model.baseURL,
        '-n',
        '1',
        '--backend',
        'docker',
        '--out',
        out,
        '--no-progress',
        '--samples',
      ]);
      expect(run.code, run.stderr.slice(-4000)).toBe(0);
      expect(run.stderr).toContain('1 samples from 1 rollouts; 0 split at a prefix break; 0 without samples');
      // The title request went through the proxy with the token fields asked for, and was answered.
      expect(model.requests.some((request) => (request.body.tools ?? []).length === 0 && request.body['return_token_ids'] === true)).toBe(true);
    } finally {
      await model.close();
    }
    const [record] = readResults(out);
    expect(record!.reward).toBe(1);
    const samples = (await readFile(join(out, 'samples.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as TrainingSample);
    expect(samples).toHaveLength(1);
    const [sample] = samples;
    const sampled = sample!.completion_ids.filter((_id, index) => sample!.completion_mask[index] === 1);
    expect(sampled.length).toBe(record!.tokens!.reduce((sum, turn) => sum + turn.completion_token_ids!.length, 0));
    expect(decodeText(sampled)).not.toContain(TITLE);
    expect(decodeText(sample!.prompt_ids)).not.toContain(TITLE);
    expect(sample!.completion_ids.slice(-completionIds(`The tool read ${MCP_MARKER}.`).length)).toEqual(completionIds(`The tool read ${MCP_MARKER}.`));
  }, 900_000);
});
