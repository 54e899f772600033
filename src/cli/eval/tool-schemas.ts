/**
 * The tool schemas the model was offered, kept in metadata.json as `tools` (OpenAI function-tool shape) so that
 * `corral export sft` can write each conversation with them. Taken from the first rollout's tool list, exactly
 * as the agent received it (the MCP session's JSON schemas).
 */
import type { Agent } from '../../runner/agents/agent.js';

export function recordingToolSchemas(agent: Agent, metadata: Record<string, unknown>): Agent {
  const recording: Agent = Object.create(agent) as Agent;
  // An own property on the wrapper; the prototype keeps the agent's class (instanceof checks still hold).
  Object.defineProperty(recording, 'run', {
    value: (input: Parameters<Agent['run']>[0]) => {
      metadata['tools'] ??= input.tools.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      }));
      return agent.run(input);
    },
  });
  return recording;
}
