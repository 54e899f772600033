/**
 * The model agent in a trial: OpenAIAgent with corral's bash and files tools, served by an in-process tool server
 * whose only sandbox is the trial container, so every tool call runs in the task's container (as root, in its
 * workdir). The agent phase's deadline cancels the model loop; the transcript goes on the record.
 */
import { CorralError } from '../../core/errors.js';
import type { SandboxSource } from '../../mcp/sandbox-source.js';
import { toolsForToolsets } from '../../mcp/toolsets.js';
import type { OpenAIAgent } from '../../runner/agents/openai/openai-agent.js';
import { TrajectoryRecorder } from '../../runner/trajectory/trajectory-recorder.js';
import type { Lease } from '../../sandbox/lease.js';
import type { SandboxSession } from '../../sandbox/session.js';
import type { TrialAgent, TrialAgentContext, TrialAgentOutcome } from '../../terminal/trial/trial-agent.js';
import { inProcessToolSessions } from './in-process-tools.js';

export const TERMINAL_SYSTEM_PROMPT =
  'You are working in a Linux container as root. Complete the task using the bash tool (and the file tools for files under the working directory). ' +
  'When the task is done, reply with a short summary and no tool call.';
const TERMINAL_MAX_TURNS = 50;

export function terminalOpenAIAgent(model: OpenAIAgent, options: { maxTurns?: number } = {}): TrialAgent {
  return {
    name: 'openai',
    model: model.model,
    async run(context: TrialAgentContext): Promise<TrialAgentOutcome> {
      const tools = inProcessToolSessions(toolsForToolsets(['shell', 'files']), trialSandboxSource(context.session, context.deadlineMs));
      const session = await tools.open({ abortSignal: context.abortSignal });
      const recorder = new TrajectoryRecorder();
      let failure: { code: string; message: string } | undefined;
      try {
        await model.run({
          example: { id: context.task.name, prompt: context.instruction },
          systemPrompt: TERMINAL_SYSTEM_PROMPT,
          tools: session,
          maxTurns: options.maxTurns ?? TERMINAL_MAX_TURNS,
          recorder,
          abortSignal: context.abortSignal,
          rolloutIndex: context.rolloutIndex,
        });
      } catch (error) {
        // The phase's deadline or a cancel: the trial runner decides (a timed-out agent is still verified).
        if (context.abortSignal.aborted) throw error;
        // The model endpoint failed: the trial is errored, with what the model did so far on the record.
        failure = CorralError.isInstance(error)
          ? { code: error.code, message: error.message }
          : { code: 'RUNNER_ERR_UNEXPECTED', message: error instanceof Error ? error.message : String(error) };
      } finally {
        await session.close().catch(() => undefined);
      }
      const trajectory = recorder.finish(failure || recorder.failure ? 'errored' : 'answered');
      failure ??= trajectory.failure ? { code: trajectory.failure.code, message: trajectory.failure.message } : undefined;
      return {
        exitCode: null,
        summary: trajectory.answer ?? '',
        details: {
          completion: trajectory.completion,
          turns: trajectory.turns,
          usage: trajectory.usage ?? null,
          tool_calls: trajectory.toolCalls,
          // Token ids and logprobs of every model turn, as the server returned them (never re-tokenised).
          tokens: trajectory.tokens,
        },
        ...(failure ? { failure } : {}),
      };
    },
  };
}

/** A sandbox source with one sandbox: the trial container. Releasing the lease leaves it to the trial. */
export function trialSandboxSource(session: SandboxSession, expiresAtMs: number): SandboxSource {
  return {
    async acquire(kind) {
      if (kind !== 'general') throw new CorralError('SBX_ERR_UNAVAILABLE', 'a terminal trial serves only bash and file tools');
      const lease: Lease = {
        id: session.id,
        session,
        specHash: 'terminal-trial',
        expiresAtMs,
        acquireMs: 0,
        closed: false,
        release: async () => undefined,
        health: async () => true,
        snapshot: async () => {
          throw new CorralError('SBX_ERR_UNSUPPORTED', "a terminal trial's container is not forked through its tools' lease");
        },
        fork: async () => {
          throw new CorralError('SBX_ERR_UNSUPPORTED', "a terminal trial's container is not forked through its tools' lease");
        },
        [Symbol.asyncDispose]: async () => undefined,
      };
      return lease;
    },
  };
}
