/**
 * `corral eval test/fixtures/cli-agents/one-sandbox-env.ts --agent <cli>` through the CLI binary, Docker backend, for
 * each of the five CLI agents, with a scripted model behind corral's recording proxy. In one rollout the CLI makes
 * one native shell call that writes shell-marker.txt and one corral MCP call (the environment's python tool) that
 * reads it and writes mcp-marker.txt, then answers with what the tool saw. The rubric reads mcp-marker.txt in the
 * rollout's sandbox: reward 1 proves the CLI, its shell, corral's tool and the rubric shared one sandbox. The test
 * also checks every model call's token ids in results.jsonl and the ATIF trajectory. The five runs go two at a
 * time, slowest first (OpenCode and Qwen Code start in ~10-40 s here; Codex in ~3 s).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliAgentMounts } from '../../src/cli-agents/agent-installation.js';
import { cliAgent } from '../../src/cli-agents/cli-agent-registry.js';
import { agentsCacheDirectory } from '../../src/cli-agents/installable-package.js';
import { corralCacheDirectory } from '../../src/core/cache-directory.js';
import { atifTrajectoryPath } from '../../src/export/atif-run-export.js';
import { validateAtif } from '../../src/export/atif-validate.js';
import type { ResultRecord } from '../../src/runner/trajectory/result-record.js';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import {
  type ChatCompletionRequestBody,
  type ModelReply,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../src/testing/scripted-model-server.js';
import { MCP_MARKER, SHELL_MARKER } from '../fixtures/cli-agents/one-sandbox-env.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { type CliResult, readResults, runCorral } from './runner-cli.js';

const dockerAvailable = await backendAvailable('docker');
const ENVIRONMENT = './test/fixtures/cli-agents/one-sandbox-env.ts';
/** Slowest first, so the two-at-a-time runs end together. */
const CLI_NAMES = ['opencode', 'qwen-code', 'gemini-cli', 'claude-code', 'codex'];
const CONCURRENT_RUNS = 2;
const TOKENS = { promptTokenIds: [101, 102, 103], completionTokenIds: [201, 202], logprobs: [-0.5, -0.25] };
/** Native shell tools, most specific first. */
const SHELL_TOOLS = ['exec_command', 'shell', 'run_shell_command', 'Bash', 'bash'];
const PYTHON_CODE = `open('mcp-marker.txt', 'w').write(open('shell-marker.txt').read().strip() + '+python')\nprint(open('mcp-marker.txt').read())`;
/** Claude Code and Gemini CLI check the model name's family. */
const MODEL_NAMES: Record<string, string> = { 'claude-code': 'claude-sonnet-4-5', 'gemini-cli': 'gemini-2.5-pro' };

/** Native shell → corral python over MCP → an answer naming what the tool printed; untooled requests (titles) get a title. */
function scriptFor(cli: string) {
  let step = 0;
  return (request: ChatCompletionRequestBody): ModelReply => {
    const tools = request.tools ?? [];
    if (tools.length === 0) return { kind: 'text', content: 'Markers', tokens: TOKENS };
    const shell = SHELL_TOOLS.map((name) => tools.find((tool) => tool.function.name === name)).find((tool) => tool !== undefined);
    const python = tools.map((tool) => tool.function.name).find((name) => /(^|[_.])python$/.test(name));
    if (step === 0 && shell) {
      step = 1;
      const properties = (shell.function.parameters as { properties?: Record<string, { type?: string }> } | undefined)?.properties;
      const line = `echo ${SHELL_MARKER} > shell-marker.txt`;
      const args =
        properties?.command?.type === 'array'
          ? { command: ['bash', '-lc', line] }
          : cli === 'codex' && properties?.cmd
            ? { cmd: line }
            : { command: line, description: 'write a marker' };
      return { kind: 'tool-calls', content: 'Writing the marker.', toolCalls: [{ name: shell.function.name, arguments: args }], tokens: TOKENS };
    }
    if (step === 1 && python) {
      step = 2;
      return { kind: 'tool-calls', toolCalls: [{ name: python, arguments: { code: PYTHON_CODE } }], tokens: TOKENS };
    }
    const seen = request.messages.some((message) => message.role === 'tool' && JSON.stringify(message.content).includes(MCP_MARKER));
    return { kind: 'text', content: seen ? `The tool read ${MCP_MARKER}.` : 'The tool did not see the marker.', tokens: TOKENS };
  };
}

interface CliRun {
  run: CliResult;
  out: string;
  model: ScriptedModelServer;
  seconds: number;
}

describe.runIf(dockerAvailable)('corral eval --agent <cli>: the CLI, its shell, corral tools and the rubric in one sandbox', () => {
  let outputRoot: string;
  const runs = new Map<string, Promise<CliRun>>();

  beforeAll(async () => {
    await buildImages({ offline: true, log: (line) => console.log(`[images] ${line}`) });
    const cache = agentsCacheDirectory(corralCacheDirectory(process.env.CORRAL_CACHE_DIR));
    for (const name of CLI_NAMES) await cliAgentMounts(cliAgent(name), cache); // installed by setup.sh; throws CLI_AGENT_ERR_NOT_INSTALLED otherwise
    outputRoot = await mkdtemp(join(tmpdir(), 'corral-cli-eval-'));
    const queue = [...CLI_NAMES];
    const gates = new Map<string, (value: void) => void>();
    const waiting = new Map(CLI_NAMES.map((name) => [name, new Promise<void>((resolve) => gates.set(name, resolve))]));
    const next = () => {
      const name = queue.shift();
      if (name) gates.get(name)!();
    };
    for (const name of CLI_NAMES) {
      const started = waiting.get(name)!.then(() => runCli(name, outputRoot));
      runs.set(name, started);
      void started.finally(next).catch(() => undefined);
    }
    for (let slot = 0; slot < CONCURRENT_RUNS; slot++) next();
  }, 1_800_000);

  afterAll(async () => {
    await Promise.allSettled([...runs.values()].map(async (pending) => (await pending).model.close()));
    if (outputRoot) await rm(outputRoot, { recursive: true, force: true });
  });

  for (const name of CLI_NAMES) {
    it(`${name}: a native shell call and a corral MCP call meet in the rollout's sandbox; scored, every model call's tokens, valid ATIF`, async () => {
      const { run, out, model, seconds } = await runs.get(name)!;
      expect(run.code, run.stderr.slice(-4000)).toBe(0);
      const [record] = readResults(out);
      console.log(`[cli-agents-eval] ${name}: rollout ${(record!.timing.total_ms / 1000).toFixed(1)} s, corral eval ${seconds.toFixed(1)} s`);
      expect(record!.error).toBeNull();
      // The rubric read the python tool's file in the rollout's sandbox: it holds what the CLI's shell wrote.
      expect(record!.metrics.one_sandbox).toBe(1);
      expect(record!.reward).toBe(1);
      // The CLI's config, state and logs stayed out of the graded workspace.
      expect(record!.metrics.workspace_clean).toBe(1);
      expect(record!.final_answer).toContain(MCP_MARKER);
      // Both calls were made: the native shell one (the CLI's own tool) and corral's python, recorded as a tool call.
      const called = assistantToolNames(record!);
      expect(called.some((tool) => SHELL_TOOLS.includes(tool))).toBe(true);
      expect(called.some((tool) => /(^|[_.])python$/.test(tool))).toBe(true);
      expect(record!.timing.tool_calls.map((call) => call.name)).toEqual(['python']);
      expect(record!.timing.tool_calls[0]!.isError).toBe(false);
      // The tool's output, as the CLI handed it back to the model, holds the shell's file content.
      const toolMessages = record!.completion.filter((message) => message.role === 'tool').map((message) => JSON.stringify(message.content));
      expect(toolMessages.some((text) => text.includes(MCP_MARKER))).toBe(true);
      // Every model call of the CLI's final conversation is on the record with its token ids; a call outside it (a
      // title request) counts in turns and usage but has no token entry, so it is never trained on.
      const assistantTurns = record!.completion.filter((message) => message.role === 'assistant').length;
      expect(record!.tokens!.length).toBe(assistantTurns);
      expect(model.requests.length).toBeGreaterThanOrEqual(assistantTurns);
      for (const turn of record!.tokens!) {
        expect(turn.completion_token_ids).toEqual(TOKENS.completionTokenIds);
        expect(turn.prompt_token_ids).toEqual(TOKENS.promptTokenIds);
      }
      const trajectory = JSON.parse(readFileSync(atifTrajectoryPath(join(out, 'atif'), record!.example_id, record!.rollout_index), 'utf8'));
      expect(validateAtif(trajectory).problems).toEqual([]);
      expect(trajectory.agent.name).toBe(name);
    }, 1_800_000);
  }

  it('a backend that cannot mount is refused before any rollout, with a typed error', async () => {
    const model = await startScriptedModelServer(scriptFor('codex'));
    try {
      const out = join(outputRoot, 'process-backend');
      const args = ['eval', ENVIRONMENT, '--agent', 'codex', '--model', 'scripted', '--base-url', model.baseURL, '--backend', 'process'];
      const run = await runCorral([...args, '--out', out, '--no-progress']);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('SBX_ERR_UNSUPPORTED');
      expect(run.stderr).toContain('--backend docker');
      expect(readResults(out)).toEqual([]);
      expect(model.requests).toEqual([]);
    } finally {
      await model.close();
    }
  }, 120_000);
});

async function runCli(name: string, outputRoot: string): Promise<CliRun> {
  const model = await startScriptedModelServer(scriptFor(name));
  const out = join(outputRoot, name);
  const started = performance.now();
  const args = ['eval', ENVIRONMENT, '--agent', name, '--model', MODEL_NAMES[name] ?? 'scripted-model', '--base-url', model.baseURL];
  const run = await runCorral([...args, '-n', '1', '--backend', 'docker', '--out', out, '--no-progress']);
  return { run, out, model, seconds: (performance.now() - started) / 1000 };
}

function assistantToolNames(record: ResultRecord): string[] {
  return record.completion.flatMap((message) => (message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.function.name) : []));
}
