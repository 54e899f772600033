import { afterEach, describe, expect, it } from 'vitest';
import { python3Available } from '../../../../helpers/test-gates.js';
import { builtInAgentNotes, builtInAgents } from '../../../../../src/runner/agents/baseline/baseline-agents.js';
import { EmptyCodeAgent } from '../../../../../src/runner/agents/baseline/baseline-empty-code-agent.js';
import { OracleCodeAgent } from '../../../../../src/runner/agents/baseline/oracle-code-agent.js';
import type { Agent } from '../../../../../src/runner/agents/agent.js';
import type { Example } from '../../../../../src/runner/contract/environment.js';
import type { ToolSessionFactory } from '../../../../../src/runner/contract/tool-session.js';
import { createPythonCodeEnvironment } from '../../../../../src/runner/environments/index.js';
import { loadCodeProblems } from '../../../../../src/runner/environments/python-code/code-dataset.js';
import { runRollout } from '../../../../../src/runner/scheduler/run-rollout.js';
import { FakeWorkspaceTools } from './baseline-fake-workspace-tools.js';

const fixtures = new URL('../../../../fixtures/code/', import.meta.url).pathname;
const problems = ['humaneval-tiny.jsonl', 'mbpp-tiny.jsonl', 'sanitized-mbpp-tiny.json'].flatMap((file) => loadCodeProblems(`${fixtures}${file}`));
const python3Works = python3Available();
const environment = createPythonCodeEnvironment();
let workspaces: FakeWorkspaceTools[] = [];
afterEach(() => {
  for (const workspace of workspaces) workspace.dispose();
  workspaces = [];
});

/** One fresh workspace per rollout, as the pool gives one sandbox per rollout. */
const sessions: ToolSessionFactory = {
  open: async () => {
    const workspace = new FakeWorkspaceTools();
    workspaces.push(workspace);
    return Object.assign(Object.create(workspace) as FakeWorkspaceTools, { close: async () => undefined });
  },
};

const rollout = (agent: Agent, example: Example) =>
  runRollout({ environment, agent, tools: sessions, example, rolloutIndex: 0, abortSignal: new AbortController().signal });

describe('code agents', () => {
  it('are registered by name next to the baseline', () => {
    expect(Object.keys(builtInAgents).sort()).toEqual(['baseline', 'empty', 'oracle']);
    expect(builtInAgents.oracle!()).toBeInstanceOf(OracleCodeAgent);
    expect(builtInAgents.empty!()).toBeInstanceOf(EmptyCodeAgent);
    expect(builtInAgentNotes.baseline!.environments).toEqual(['wiki-search']);
  });

  it('oracle writes the reference to solution.py and answers with it, like a model would', async () => {
    const record = await rollout(new OracleCodeAgent(), problems[0]!);
    const [call] = workspaces[0]!.calls;
    expect(call).toEqual({ name: 'write_file', args: { path: 'solution.py', content: problems[0]!.answer } });
    const [assistant, tool, final] = record.completion;
    expect(assistant).toMatchObject({ role: 'assistant', tool_calls: [{ function: { name: 'write_file' } }] });
    expect(tool).toMatchObject({ role: 'tool' });
    expect(final).toMatchObject({ role: 'assistant', content: expect.stringContaining('```python\ndef add_pair') });
    expect(record.final_answer).toContain('return a + b');
    expect(record.turns).toBe(2);
  });

  it('empty writes signatures with pass bodies', async () => {
    await rollout(new EmptyCodeAgent(), problems[2]!);
    expect(workspaces[0]!.calls[0]!.args.content).toBe('def count_vowels(text):\n    pass\n');
  });

  it.skipIf(!python3Works)('oracle scores 1 and empty scores 0 on every fixture format (local python3)', async () => {
    for (const example of problems) {
      const oracle = await rollout(new OracleCodeAgent(), example);
      const empty = await rollout(new EmptyCodeAgent(), example);
      expect([example.id, oracle.error, oracle.reward, empty.error, empty.reward]).toEqual([example.id, null, 1, null, 0]);
    }
  });
});
