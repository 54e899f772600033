/**
 * `defineAgent`: the model-free agent an environment module exports for CI (`export const agents = { reference:
 * defineAgent({...}) }`, run with `corral eval ./env.ts --agent reference`). It hides the recorder: each
 * `callTool(name, args)` is recorded as one turn (an assistant message holding the call, then the tool message),
 * exactly as a model's turn would be, and `answer(text)` is the final assistant message the parser and rubric read.
 *
 * Misuse (a tool the environment does not have, arguments that are not an object, more tool calls than maxTurns,
 * a second answer) throws AGENT_ERR_MISUSE with what to write instead, so the rollout is errored with a reason
 * rather than RUNNER_ERR_UNEXPECTED.
 */
import { CorralError } from '../../core/errors.js';
import type { Agent, AgentRunInput } from '../agents/agent.js';
import type { Example } from './environment.js';
import type { ToolInfo, ToolOutcome } from './tool-access.js';

export interface ModelFreeAgentContext {
  readonly example: Example;
  /** The environment's tools as the agent sees them (name, description, JSON Schema of the input). */
  readonly tools: readonly ToolInfo[];
  readonly maxTurns: number;
  /** Rollout index within the example's group (0..r-1). */
  readonly rolloutIndex: number;
  readonly abortSignal: AbortSignal;
  /** Calls one tool as one turn; a failure inside the tool is an outcome with isError, not a throw. */
  callTool(name: string, args?: Record<string, unknown>): Promise<ToolOutcome>;
  /** The final answer: one assistant message with this text. Call it at most once. */
  answer(text: string): void;
  /** True once the environment's stop predicates hold (check it after a tool call; false when it has none). */
  shouldStop(): boolean;
}

export interface ModelFreeAgentDefinition {
  /** The name `--agent` picks it by is the key in `agents`; this one goes into results (model). */
  readonly name: string;
  /** Environment names it is written for; `corral eval` refuses others before the first rollout. Absent: any. */
  readonly environments?: readonly string[];
  run(context: ModelFreeAgentContext): Promise<void> | void;
}

/** Returns the factory `agents` holds: `export const agents = { reference: defineAgent({ name, run }) }`. */
export function defineAgent(definition: ModelFreeAgentDefinition): () => Agent {
  if (typeof definition?.name !== 'string' || definition.name.length === 0) throw misuse('defineAgent needs a name (a non-empty string)');
  if (typeof definition.run !== 'function') throw misuse(`defineAgent(${definition.name}): run must be a function ({ callTool, answer, ... }) => ...`);
  return () => ({
    name: definition.name,
    model: definition.name,
    ...(definition.environments ? { environments: definition.environments } : {}),
    run: async (input) => {
      await definition.run(contextOf(definition.name, input));
    },
  });
}

function contextOf(agentName: string, input: AgentRunInput): ModelFreeAgentContext {
  const { recorder, tools, abortSignal } = input;
  let calls = 0;
  let answered = false;
  return {
    example: input.example,
    tools: tools.tools,
    maxTurns: input.maxTurns,
    rolloutIndex: input.rolloutIndex,
    abortSignal,
    async callTool(name, args = {}) {
      if (answered) throw misuse(`agent ${agentName} called ${name} after answer(): answer() ends the rollout's turns`);
      const known = tools.tools.map((tool) => tool.name);
      if (typeof name !== 'string' || !known.includes(name))
        throw misuse(`agent ${agentName} called tool ${JSON.stringify(name)}, which this environment does not have; its tools are ${known.join(', ')}`);
      if (typeof args !== 'object' || args === null || Array.isArray(args))
        throw misuse(`agent ${agentName}: callTool(${JSON.stringify(name)}, args) takes args as an object of the tool's input fields`);
      if (++calls > input.maxTurns)
        throw misuse(`agent ${agentName} made more than maxTurns (${input.maxTurns}) tool calls: check ctx.shouldStop() or count turns against ctx.maxTurns`);
      const turn = recorder.startTurn();
      const call = { id: `call_${calls}`, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } };
      recorder.message({ role: 'assistant', content: null, tool_calls: [call] });
      return recorder.callTool(tools, call, turn, abortSignal);
    },
    answer(text) {
      if (typeof text !== 'string') throw misuse(`agent ${agentName}: answer(text) takes a string, got ${typeof text}`);
      if (answered) throw misuse(`agent ${agentName} answered twice; answer() is the final message`);
      answered = true;
      recorder.startTurn();
      recorder.message({ role: 'assistant', content: text });
      recorder.answer(text);
    },
    shouldStop: () => input.shouldStop?.() ?? false,
  };
}

const misuse = (message: string) => new CorralError('AGENT_ERR_MISUSE', message);
