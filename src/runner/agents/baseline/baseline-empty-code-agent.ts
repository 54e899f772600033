/**
 * 'empty' for python-code: writes the problem's signature with an empty body (`pass`), which must score 0.
 * Paired with the oracle it brackets the rubric: a rubric that passes empty functions is broken.
 */
import type { Agent, AgentRunInput } from '../agent.js';
import { submitSolution } from './oracle-code-agent.js';

export class EmptyCodeAgent implements Agent {
  readonly name = 'empty';
  readonly model = 'empty';
  readonly environments = ['python-code'] as const;

  async run(input: AgentRunInput): Promise<void> {
    const info = input.example.info ?? {};
    const entryPoint = typeof info.entry_point === 'string' && info.entry_point !== '' ? info.entry_point : 'solution';
    // The environment provides the stub; a foreign dataset without one still gets an empty function.
    const stub = typeof info.stub === 'string' ? info.stub : `def ${entryPoint}(*args, **kwargs):\n    pass\n`;
    await submitSolution(input, stub);
  }
}
