/**
 * 'oracle' for python-code: writes the dataset's reference solution (HumanEval: prompt + canonical_solution;
 * MBPP: code, as the environment puts it in example.answer) to solution.py, then answers with it. Expect 100%:
 * anything less points at the sandbox, the tools or the rubric, not at a model.
 */
import type { Agent, AgentRunInput } from '../agent.js';
import { ToolSteps } from './baseline-tool-steps.js';

/** Writes `code` to solution.py in one tool step, then answers with it in a python block. */
export async function submitSolution(input: AgentRunInput, code: string): Promise<void> {
  const steps = new ToolSteps(input.recorder, input.tools, input.maxTurns, input.abortSignal);
  if (steps.stepsLeft > 0) await steps.step([{ name: 'write_file', args: { path: 'solution.py', content: code } }], 'Writing the solution to solution.py.');
  steps.answer(`The solution is in solution.py:\n\n\`\`\`python\n${code.trimEnd()}\n\`\`\``);
}

export class OracleCodeAgent implements Agent {
  readonly name = 'oracle';
  readonly model = 'oracle';
  readonly environments = ['python-code'] as const;

  async run(input: AgentRunInput): Promise<void> {
    const reference = input.example.answer;
    await submitSolution(input, typeof reference === 'string' ? reference : '');
  }
}
