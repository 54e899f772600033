/**
 * For rollouts whose model endpoint is a remote client's choice (`corral serve`, and its jobs on queue workers): what
 * that endpoint answered in an error (a body, a socket error naming internal addresses) goes to the server's or
 * worker's log through `onWithheld`, and the record gets the status and code only. `corral eval` builds its agent
 * directly and keeps the full text for its local user.
 */
import { CorralError } from '../../core/errors.js';
import type { Agent, AgentRunInput } from '../../runner/agents/agent.js';
import { withoutUpstreamDetail } from '../../runner/agents/openai/model-error.js';

export function withheldUpstreamErrors(agent: Agent, onWithheld: (error: CorralError, input: AgentRunInput) => void): Agent {
  return {
    name: agent.name,
    model: agent.model,
    samplingArgs: agent.samplingArgs,
    // The wrapper continues a conversation exactly when the agent does (environments that answer turns need it).
    ...(agent.takesEnvironmentReplies ? { takesEnvironmentReplies: true } : {}),
    async run(input) {
      try {
        await agent.run(input);
      } catch (error) {
        if (!CorralError.isInstance(error) || !error.code.startsWith('MODEL_')) throw error;
        onWithheld(error, input);
        throw withoutUpstreamDetail(error);
      }
    },
  };
}
