/**
 * `corral eval <env> --agent opencode|codex|claude-code|gemini-cli|qwen-code --model M --base-url URL`: the
 * CLI runs headless inside the rollout's own sandbox (its needs, cliAgentSandboxNeeds, are merged into the
 * environment's sandbox spec before the rollout leases), so its native shell, the environment's tools, hooks and
 * rubric all see one workspace. Its model calls go through the recording proxy to the user's endpoint and land in
 * the rollout's trajectory as they happen; the environment's tools reach it over MCP, forwarded to the rollout's
 * tool session (recorded as tool calls). The answer is the CLI's last assistant message as the proxy saw it.
 */
import type { CliAgentDefinition } from '../../cli-agents/cli-agent.js';
import { agentsCacheDirectory } from '../../cli-agents/installable-package.js';
import { corralCacheDirectory } from '../../core/cache-directory.js';
import { CorralError } from '../../core/errors.js';
import type { SandboxSource } from '../../mcp/sandbox-source.js';
import { type ModelProxy, startModelProxy } from '../../model-proxy/model-proxy.js';
import type { Agent, AgentRunInput } from '../../runner/agents/agent.js';
import type { AgentSandboxNeeds } from '../../runner/agents/agent-sandbox.js';
import { agentPromptMessages } from '../../runner/agents/prompt-messages.js';
import { cliAgentSandboxNeeds, runCliAgent } from './cli-agent-sandbox-run.js';
import { cliConversation } from './cli-rollout-record.js';
import { toolAccessCatalog } from './tool-access-catalog.js';

export interface CliCodingAgentOptions {
  definition: CliAgentDefinition;
  model: string;
  /** The user's OpenAI-compatible endpoint; the proxy translates every dialect to it. */
  baseUrl: string;
  apiKey?: string;
  samplingArgs: Record<string, unknown>;
  /** corral's cache folder (cache.dir); the CLI must be installed in <cache>/agents. */
  cacheDirectory?: string;
  requestTimeoutMs: number;
  timeoutMs?: number;
}

/** The CLI's MCP tools are the rollout's own (forwarded to its tool session): none of them leases a sandbox here. */
const NO_TOOL_SANDBOXES: SandboxSource = {
  acquire: () => Promise.reject(new CorralError('SBX_ERR_UNAVAILABLE', "the CLI agent's tools run through the rollout's tool session")),
};

export class CliCodingAgent implements Agent {
  readonly name: string;
  readonly model: string;
  readonly samplingArgs: Readonly<Record<string, unknown>>;
  private proxy: Promise<ModelProxy> | undefined;

  /** Where the CLI's model calls go (through the proxy): what corral eval's preflight checks. */
  get baseUrl(): string {
    return this.options.baseUrl;
  }

  constructor(private readonly options: CliCodingAgentOptions) {
    this.name = options.definition.name;
    this.model = options.model;
    this.samplingArgs = options.samplingArgs;
  }

  sandboxNeeds(): Promise<AgentSandboxNeeds> {
    return cliAgentSandboxNeeds(this.options.definition, agentsCacheDirectory(corralCacheDirectory(this.options.cacheDirectory)));
  }

  async run({ example, systemPrompt, tools, recorder, abortSignal, sandbox }: AgentRunInput): Promise<void> {
    if (!sandbox?.socketsDirectory)
      throw new CorralError('RUNNER_ERR_UNEXPECTED', `${this.name} runs inside the rollout's sandbox, and this rollout was opened without its sandbox needs`);
    const proxy = await this.startProxy();
    const session = await sandbox.session.session({ abortSignal });
    const instruction = agentPromptMessages(systemPrompt, example)
      .map((message) => (typeof message.content === 'string' ? message.content : ''))
      .filter((text) => text.length > 0)
      .join('\n\n');
    const result = await runCliAgent({
      agent: this.options.definition,
      session,
      socketsDirectory: sandbox.socketsDirectory,
      proxy,
      catalog: toolAccessCatalog('env', tools, recorder),
      toolSandboxSource: NO_TOOL_SANDBOXES,
      environmentName: 'env',
      instruction,
      model: this.options.model,
      rolloutId: String(example.id),
      trajectory: recorder,
      abortSignal,
      ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
    });
    if (abortSignal.aborted) throw new CorralError('ERR_ABORTED', 'the rollout was cancelled');
    const conversation = cliConversation(result.calls);
    recorder.replaceCompletion(conversation.completion);
    // Only the final conversation's calls are trained on (not, e.g., OpenCode's title request).
    recorder.replaceTokens(conversation.tokens);
    // Past the proxy's per-rollout bound, later calls were refused: the rollout is errored, never kept cut short.
    if (result.limitFailure) throw new CorralError('PROXY_ERR_ROLLOUT_LIMIT', result.limitFailure.message);
    const failed = result.calls.find((call) => call.error !== null);
    if (result.exit.exitCode !== 0) {
      const reason = failed?.error ? `; model call ${failed.index} failed: ${failed.error.message}` : '';
      throw new CorralError(
        failed?.error ? 'MODEL_ERR_HTTP' : 'RUNNER_ERR_UNEXPECTED',
        `${this.name} exited ${result.exit.exitCode}${reason}: ${result.exit.stderr.slice(-500)}`,
      );
    }
    recorder.answer(conversation.answer);
  }

  async close(): Promise<void> {
    const proxy = this.proxy;
    this.proxy = undefined;
    if (proxy) await (await proxy).close().catch(() => undefined);
  }

  private startProxy(): Promise<ModelProxy> {
    this.proxy ??= startModelProxy({
      upstream: {
        baseURL: this.options.baseUrl,
        apiKey: this.options.apiKey ?? process.env['OPENAI_API_KEY'] ?? 'EMPTY',
        model: this.options.model,
        requestTimeoutMs: this.options.requestTimeoutMs,
      },
      forcedArgs: this.options.samplingArgs,
      listen: { port: 0 },
    });
    return this.proxy;
  }
}
