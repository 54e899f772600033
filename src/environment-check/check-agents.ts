/**
 * The two agents the battery brings itself: the floor (answers an empty string, calls no tool: what a rubric must
 * not pay), and the reference-answer oracle for environments that ship no agent of their own (answers the
 * example's gold answer as its final text, so the rubric is checked against the dataset's own answers). In an
 * environment that talks back (`respond`) both keep the conversation going: they give the same answer again after
 * each reply until respond ends the episode or maxTurns runs out, as a model that never changes its mind would.
 */
import type { Agent, AgentRunInput } from '../runner/agents/agent.js';
import type { Example } from '../runner/contract/environment.js';

function finalAnswer(input: AgentRunInput, text: string): void {
  input.recorder.startTurn();
  input.recorder.message({ role: 'assistant', content: text });
  input.recorder.answer(text);
}

/** An agent that answers `textOf(example)` each turn: once, or after every environment reply until the episode ends. */
function answeringEachTurn(name: string, textOf: (example: Example) => string): Agent {
  return {
    name,
    model: name,
    takesEnvironmentReplies: true,
    run: async (input) => {
      const text = textOf(input.example);
      for (let turn = 0; turn === 0 || turn < input.maxTurns; turn++) {
        finalAnswer(input, text);
        if (!input.environmentReply || (await input.environmentReply()).done) return;
      }
    },
  };
}

/** The do-nothing floor: an empty answer each turn, no tool call. */
export function emptyAnswerAgent(): Agent {
  return answeringEachTurn('empty-answer', () => '');
}

/** The gold answer as text: a string as is, the first string of a list, a number or boolean printed; else null. */
export function referenceAnswerText(example: Example): string | null {
  const answer = example.answer;
  if (typeof answer === 'string') return answer;
  if (typeof answer === 'number' || typeof answer === 'boolean') return String(answer);
  if (Array.isArray(answer)) {
    const first = answer.find((item) => typeof item === 'string' || typeof item === 'number');
    return first === undefined ? null : String(first);
  }
  return null;
}

/** Answers each example's gold answer (an empty answer where the example has none, which then shows as a miss). */
export const REFERENCE_ANSWER_AGENT = 'reference-answer';

export function referenceAnswerAgent(): Agent {
  return answeringEachTurn(REFERENCE_ANSWER_AGENT, (example) => referenceAnswerText(example) ?? '');
}

/** Names an environment's own agents use for the one that should score full marks, in the order they are preferred. */
export const ORACLE_AGENT_NAMES = ['oracle', 'reference', 'solver', 'fixer'] as const;

/**
 * The oracle to check against: --oracle when given, else the environment module's own agent by a conventional name,
 * else a built-in agent named oracle that is written for this environment, else null (the reference-answer agent).
 */
export function chooseOracleName(given: string | undefined, moduleAgentNames: readonly string[], builtInOracleFits: boolean): string | null {
  if (given) return given;
  const own = ORACLE_AGENT_NAMES.find((name) => moduleAgentNames.includes(name));
  if (own) return own;
  return builtInOracleFits ? 'oracle' : null;
}

/**
 * In an environment with roles, the oracle of each role: the module's agent named `<oracle>-<role>` when it exports
 * one (a game whose roles need different play), else the oracle itself for every role.
 */
export function roleOracleNames(oracleName: string, roles: readonly string[], moduleAgentNames: readonly string[]): Record<string, string> {
  return Object.fromEntries(roles.map((role) => [role, moduleAgentNames.includes(`${oracleName}-${role}`) ? `${oracleName}-${role}` : oracleName]));
}
