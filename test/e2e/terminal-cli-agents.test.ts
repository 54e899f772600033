/**
 * `corral eval terminal --agent <cli>` as a child process with the real Docker engine: each CLI runs inside the
 * hello-world task's own container (no network; corral's proxy and MCP tools only through the container's own
 * mounted socket folder), driven by the scripted model server through the recording proxy. The scripted model
 * asks for the CLI's native shell tool writing /app/hello.txt, then answers; the verifier scores 1, the record's
 * completion is the conversation the proxy saw with the scripted token ids per model turn, the trial's
 * agent/trajectory.json validates as ATIF v1.7 and holds those ids, beside the CLI's output.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliAgentMounts } from '../../src/cli-agents/agent-installation.js';
import { CLI_AGENTS } from '../../src/cli-agents/cli-agent-registry.js';
import { agentsCacheDirectory } from '../../src/cli-agents/installable-package.js';
import { corralCacheDirectory } from '../../src/core/cache-directory.js';
import { validateAtif } from '../../src/export/atif-validate.js';
import { buildImages } from '../../src/sandbox/docker/image-builder.js';
import { TASK_BASE_IMAGE_DEFINITIONS } from '../../src/sandbox/docker/image-definition.js';
import { type ChatCompletionRequestBody, type ModelReply, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { dataDirectoryWith } from '../helpers/test-gates.js';
import { readResults, runCorral } from './runner-cli.js';

const dockerAvailable = await backendAvailable('docker');
const dataDir = dataDirectoryWith(['terminal-tasks-harbor/hello-world/task.toml']);
const cache = agentsCacheDirectory(corralCacheDirectory(process.env.CORRAL_CACHE_DIR));
const TOKENS = { promptTokenIds: [11, 12, 13], completionTokenIds: [301, 302, 303], logprobs: [-0.1, -0.2, -0.3] };
/** Native shell tools, most specific first. */
const SHELL_TOOLS = ['exec_command', 'shell', 'run_shell_command', 'Bash', 'bash'];
const LINE = "printf 'Hello, world!\\n' > /app/hello.txt";
const MODEL_NAMES: Record<string, string> = { 'claude-code': 'claude-sonnet-4-5', 'gemini-cli': 'gemini-2.5-pro' };

/** Stateless: after a tool result, answer; else call the CLI's own shell tool; tool-less requests (titles) get a title. */
function scriptFor(cli: string) {
  return (request: ChatCompletionRequestBody): ModelReply => {
    const tools = request.tools ?? [];
    if (tools.length === 0) return { kind: 'text', content: 'Hello file', tokens: TOKENS };
    if (request.messages.at(-1)?.role === 'tool') return { kind: 'text', content: 'hello.txt is written.', tokens: TOKENS };
    const shell = SHELL_TOOLS.map((name) => tools.find((tool) => tool.function.name === name)).find((tool) => tool !== undefined);
    if (!shell) return { kind: 'text', content: `no shell tool among ${tools.map((tool) => tool.function.name).join(', ')}`, tokens: TOKENS };
    const properties = (shell.function.parameters as { properties?: Record<string, { type?: string }> } | undefined)?.properties;
    const args =
      properties?.command?.type === 'array'
        ? { command: ['bash', '-lc', LINE] }
        : cli === 'codex' && properties?.cmd
          ? { cmd: LINE }
          : { command: LINE, description: 'write hello.txt' };
    return { kind: 'tool-calls', content: 'Writing the file.', toolCalls: [{ name: shell.function.name, arguments: args }], tokens: TOKENS };
  };
}

const only = process.env.CORRAL_TEST_CLI_AGENTS?.split(',');
const agents = CLI_AGENTS.filter((agent) => !only || only.includes(agent.name));

describe.runIf(dockerAvailable && dataDir)('corral eval terminal --agent <cli>: the CLI inside the task container', () => {
  let outRoot: string;

  beforeAll(async () => {
    await buildImages({ offline: true, definitions: TASK_BASE_IMAGE_DEFINITIONS, log: (line) => console.log(`[images] ${line}`) });
    for (const agent of agents) await cliAgentMounts(agent, cache); // installed by setup.sh; throws CLI_AGENT_ERR_NOT_INSTALLED otherwise
    outRoot = await mkdtemp(join(tmpdir(), 'corral-terminal-cli-'));
  }, 900_000);

  afterAll(async () => {
    if (outRoot) await rm(outRoot, { recursive: true, force: true });
  });

  for (const agent of agents) {
    it(`${agent.name} solves hello-world with its native shell tool: reward 1, token ids on the record and in a valid trajectory.json`, async () => {
      const model = await startScriptedModelServer(scriptFor(agent.name));
      try {
        const out = join(outRoot, agent.name);
        const modelName = MODEL_NAMES[agent.name] ?? 'scripted-model';
        const args = ['eval', 'terminal', '--tasks', join(dataDir!, 'terminal-tasks-harbor', 'hello-world'), '--agent', agent.name];
        const result = await runCorral([...args, '--model', modelName, '--base-url', model.baseURL, '--no-internet', '--out', out, '--no-progress']);
        const records = readResults(out);
        expect(records).toHaveLength(1);
        const record = records[0]!;
        const info = record.info as { agent_phase: unknown; trial_name: string };
        expect({ code: result.code, reward: record.reward, error: record.error }, `${JSON.stringify(info.agent_phase)}\n${result.stderr.slice(-3000)}`).toEqual(
          {
            code: 0,
            reward: 1,
            error: null,
          },
        );
        expect(info.agent_phase).toMatchObject({ exit_code: 0, timed_out: false, error: null });

        // The conversation as the proxy saw it: the task's instruction, the shell call, its result, the answer.
        const completion = record.completion;
        const assistant = completion.filter((message) => message.role === 'assistant');
        expect(JSON.stringify(completion)).toContain('hello.txt');
        expect(assistant.some((message) => (message.tool_calls?.length ?? 0) === 1)).toBe(true);
        expect(assistant.at(-1)?.content).toBe('hello.txt is written.');
        expect(completion.some((message) => message.role === 'tool')).toBe(true);
        expect(record.tokens).toHaveLength(assistant.length);
        for (const turn of record.tokens!) expect(turn.completion_token_ids).toEqual(TOKENS.completionTokenIds);

        const agentDirectory = join(out, info.trial_name, 'agent');
        const trajectory = JSON.parse(await readFile(join(agentDirectory, 'trajectory.json'), 'utf8')) as unknown;
        const validation = validateAtif(trajectory);
        expect(validation.problems).toEqual([]);
        const steps = validation.trajectory!.steps.filter((step) => step.source === 'agent');
        expect(steps).toHaveLength(assistant.length);
        for (const step of steps) expect(step.metrics?.completion_token_ids).toEqual(TOKENS.completionTokenIds);
        expect(steps.flatMap((step) => step.tool_calls ?? []).length).toBe(1);
        expect(steps.flatMap((step) => step.observation?.results ?? []).length).toBe(1);
        expect(validation.trajectory!.agent).toMatchObject({ name: agent.name, version: agent.version, model_name: modelName });
        expect(await readdir(agentDirectory)).toEqual(expect.arrayContaining(['trajectory.json', 'cli-stdout.txt', 'cli-stderr.txt']));
      } finally {
        await model.close();
      }
    }, 450_000);
  }
});
