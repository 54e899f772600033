/**
 * A CLI coding agent (claude-code, codex, opencode, gemini-cli, qwen-code) as a terminal trial's agent: the CLI
 * runs inside the trial container (the task's own image), from corral's install tree mounted read-only, headless
 * with the task's instruction as its prompt, in the task's working directory. Its model is the recording proxy
 * and its MCP server corral's bash and file tools against this same container, both only through unix sockets in
 * the container's own read-only socket folder (the bridge relays 127.0.0.1:4000/4001 to them), so with the
 * task's network none the CLI reaches nothing else. CLI state and logs stay under /tmp/corral-cli, outside the
 * graded folder; its session logs are copied to /logs/agent/sessions, its output and the ATIF trajectory are
 * written by the host into <trial>/agent/.
 */
import type { CliAgentDefinition } from '../../cli-agents/cli-agent.js';
import { cliAgentMounts } from '../../cli-agents/agent-installation.js';
import { CorralError } from '../../core/errors.js';
import type { ToolCatalog } from '../../mcp/tool-catalog.js';
import { toolsForToolsets } from '../../mcp/toolsets.js';
import type { ModelProxy } from '../../model-proxy/model-proxy.js';
import type { TrialAgent, TrialAgentContext, TrialAgentOutcome } from '../../terminal/trial/trial-agent.js';
import type { TrialContainerMounts } from '../../terminal/trial/trial-container.js';
import { AGENT_LOGS_DIRECTORY } from '../../terminal/trial/trial-container-options.js';
import { SOCKETS_TARGET, runCliAgent } from './cli-agent-sandbox-run.js';
import { cliConversation } from './cli-rollout-record.js';
import { trialSandboxSource } from './terminal-openai-agent.js';

/** The MCP entry the CLI sees: corral's shell and file tools in the trial container. */
export const TERMINAL_MCP_ENTRY = 'terminal';
const CLI_OUTPUT_LIMIT = 4_000_000;

export interface TerminalCliAgentOptions {
  definition: CliAgentDefinition;
  /** The model name the CLI is told (the proxy asks upstream for its own). */
  model: string;
  /** Started by the run (one proxy, one listener per trial). */
  proxy: ModelProxy;
  /** <cache>/agents, where `corral agents install` put the CLI. */
  agentsCacheDirectory: string;
}

/** Resolves the CLI's install mounts first (CLI_AGENT_ERR_NOT_INSTALLED before any container starts). */
export async function terminalCliAgent(options: TerminalCliAgentOptions): Promise<TrialAgent> {
  const containerMounts: TrialContainerMounts = {
    readOnlyMounts: await cliAgentMounts(options.definition, options.agentsCacheDirectory),
    socketsTarget: SOCKETS_TARGET,
  };
  return {
    name: options.definition.name,
    model: options.model,
    containerMounts,
    run: (context) => runCliInTrial(options, context),
  };
}

async function runCliInTrial(options: TerminalCliAgentOptions, context: TrialAgentContext): Promise<TrialAgentOutcome> {
  const socketsDirectory = context.socketsDirectory;
  if (!socketsDirectory) throw new CorralError('RUNNER_ERR_UNEXPECTED', 'the trial container has no socket folder for the CLI agent');
  const agent = options.definition;
  // The plumbing every CLI run shares (proxy socket, MCP socket, bridge, headless command line): cli-agent-sandbox-run.ts.
  const { exit, calls, limitFailure } = await runCliAgent({
    agent,
    session: context.session,
    socketsDirectory,
    proxy: options.proxy,
    catalog: terminalCatalog(),
    toolSandboxSource: trialSandboxSource(context.session, context.deadlineMs),
    environmentName: TERMINAL_MCP_ENTRY,
    instruction: context.instruction,
    model: options.model,
    rolloutId: `${context.task.name}#${context.rolloutIndex}`,
    workdir: context.task.environment.workdir,
    timeoutMs: Math.max(1, context.deadlineMs - Date.now()),
    abortSignal: context.abortSignal,
    maxOutputChars: CLI_OUTPUT_LIMIT,
    // The CLI's own session logs, as an artifact of the trial (collected from /logs/agent with the rest).
    copyLogsTo: `${AGENT_LOGS_DIRECTORY}/sessions`,
  });
  if (limitFailure) throw new CorralError('PROXY_ERR_ROLLOUT_LIMIT', limitFailure.message);
  const conversation = cliConversation(calls);
  const failed = calls.find((call) => call.error !== null);
  const modelFailure = cliModelFailure(agent.name, exit.exitCode, calls);
  return {
    ...(modelFailure ? { failure: modelFailure } : {}),
    exitCode: exit.exitCode,
    summary:
      exit.exitCode === 0
        ? conversation.answer
        : `${agent.name} exited ${exit.exitCode}${failed?.error ? `; model call ${failed.index} failed: ${failed.error.message}` : ''}: ${exit.stderr.slice(-500)}`,
    details: {
      completion: conversation.completion,
      tokens: conversation.tokens,
      turns: calls.filter((call) => call.error === null).length,
      usage: totalUsage(calls),
      model_calls: calls.length,
      cli: { name: agent.name, version: agent.version },
    },
    agentFiles: [
      { name: 'cli-stdout.txt', content: exit.stdout },
      { name: 'cli-stderr.txt', content: exit.stderr },
    ],
  };
}

/**
 * The CLI could not work because its model did not answer: it exited non-zero after a failed last call, or no call
 * succeeded at all. The trial is then errored with the upstream's code, not verified as the CLI's attempt.
 */
function cliModelFailure(
  agentName: string,
  exitCode: number | null,
  calls: readonly { index: number; error: { code: string; message: string } | null }[],
): { code: string; message: string } | undefined {
  const last = calls.at(-1);
  if (!last?.error) return undefined;
  if (exitCode === 0 && calls.some((call) => call.error === null)) return undefined;
  return { code: last.error.code, message: `${agentName}: model call ${last.index} failed: ${last.error.message}` };
}

/** Every call's usage summed (CLIs resend the conversation, so prompt tokens add up per call, as billed). */
function totalUsage(calls: readonly { usage: { prompt_tokens: number; completion_tokens: number } | null }[]) {
  const used = calls.filter((call) => call.usage !== null);
  if (used.length === 0) return null;
  return {
    prompt_tokens: used.reduce((sum, call) => sum + call.usage!.prompt_tokens, 0),
    completion_tokens: used.reduce((sum, call) => sum + call.usage!.completion_tokens, 0),
  };
}

/** corral's bash and file tools as a one-entry catalog; they run in the trial container (trialSandboxSource). */
function terminalCatalog(): ToolCatalog {
  const entry = Object.freeze({
    name: TERMINAL_MCP_ENTRY,
    tools: toolsForToolsets(['shell', 'files']),
    instructions: "corral's bash and file tools in the task's container (the same file system the CLI's own tools see).",
  });
  return { get: (name) => (name === TERMINAL_MCP_ENTRY ? entry : undefined), names: () => [TERMINAL_MCP_ENTRY] };
}
