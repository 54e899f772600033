/**
 * Bug fixing in the sandbox. Shows, in one environment:
 * - setup: writes the task's files into the rollout's sandbox and starts a background process (a heartbeat
 *   "service" the checker expects to be running) before the agent's first turn; cleanup stops it after scoring;
 * - a custom tool (`run_checks`) that runs the checker inside the sandbox;
 * - an answer parser: the answer is the last ```python block of the final reply (the trajectory keeps the text);
 * - a stop predicate: the rollout ends once a reply holds a code block (answerParses);
 * - an async-iterable dataset, and env args (`count`) that change it.
 *
 *   corral eval ./examples/bugfix/index.ts --agent fixer --env-args '{"count":2}'
 */
import { answerParses, defineEnvironment, defineTool, lastCodeBlock, z, type EnvironmentSandbox, type ToolContext, type RubricInput } from 'corral';
import { bugfixAgents } from './agents.js';
import { BUG_COUNT, bugStream } from './tasks.js';

interface BugfixState {
  checkRuns: number;
}

const PASSED = 'ALL CHECKS PASSED';

/** The checker: the task's asserts, run against app/, plus a check that the service setup started is alive. */
const CHECKER = `import os, sys
sys.path.insert(0, 'app')
pid = int(open('service.pid').read())
os.kill(pid, 0)  # raises when the service died
exec(open('checks/checks.py').read())
print('${PASSED}')
`;

/** A stand-in for a task's long-running process (a database, a dev server): writes a heartbeat until stopped. */
const SERVICE = `import os, time
open('service.pid', 'w').write(str(os.getpid()))
while True:
    open('service.heartbeat', 'w').write(str(time.time()))
    time.sleep(0.2)
`;

async function runChecks(sandbox: EnvironmentSandbox, abortSignal: AbortSignal) {
  // -B: no bytecode cache, so a fix of the same size written within the same second is not shadowed by a stale .pyc.
  const run = await sandbox.exec({ command: ['python3', '-B', 'checks/run_checks.py'], timeoutMs: 20_000, abortSignal });
  const passed = run.exitCode === 0 && run.stdout.includes(PASSED);
  return { passed, output: `${run.stdout}${run.stderr}`.slice(-2_000) };
}

const runChecksTool = defineTool({
  name: 'run_checks',
  description: "Runs the task's checker against the modules in app/ inside the sandbox. Returns PASS, or FAIL with the checker's output (the failing assert).",
  inputSchema: z.object({}),
  outputSchema: z.object({ passed: z.boolean(), output: z.string() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async execute(_input, { sandbox, state, abortSignal }: ToolContext<BugfixState>) {
    state.checkRuns++;
    const result = await runChecks(sandbox, abortSignal);
    return { text: result.passed ? 'PASS' : `FAIL\n${result.output}`, structuredContent: result };
  },
});

/** Reward: the parsed answer (the fixed module), written into the same sandbox, passes the checker. */
async function fixedModulePasses({ example, parsedAnswer, tools, abortSignal }: RubricInput): Promise<number> {
  if (typeof parsedAnswer !== 'string') return 0;
  const path = `app/${String(example.info?.module)}.py`;
  const written = await tools.call('write_file', { path, content: parsedAnswer }, { abortSignal });
  if (written.isError) throw new Error(`could not write ${path}: ${written.text}`);
  const checked = await tools.call('run_checks', {}, { abortSignal });
  return (checked.structuredContent as { passed?: boolean } | undefined)?.passed === true ? 1 : 0;
}

export default defineEnvironment({
  name: 'bugfix',
  description: 'Fix a one-line bug in a Python module; a checker in the sandbox decides.',
  toolsets: ['files'],
  tools: [runChecksTool],
  argsSchema: z.object({ count: z.number().int().min(1).max(BUG_COUNT).default(BUG_COUNT).describe('how many tasks') }).strict(),
  dataset: ({ envArgs }) => bugStream(envArgs.count),
  state: (): BugfixState => ({ checkRuns: 0 }),
  async setup({ example, sandbox, abortSignal }) {
    const info = example.info as { module: string; buggy: string; checks: string };
    await sandbox.files.write({ path: `app/${info.module}.py`, content: info.buggy, createParents: true, abortSignal });
    await sandbox.files.write({ path: 'checks/checks.py', content: info.checks, createParents: true, abortSignal });
    await sandbox.files.write({ path: 'checks/run_checks.py', content: CHECKER, abortSignal });
    await sandbox.files.write({ path: 'service.py', content: SERVICE, abortSignal });
    // Output to files, not to the exec's pipes: the command returns at once and the service keeps running.
    const started = await sandbox.exec({ command: 'nohup python3 service.py > service.log 2>&1 < /dev/null & sleep 0.5; cat service.pid', abortSignal });
    if (started.exitCode !== 0 || started.stdout.trim() === '') throw new Error(`the service did not start: ${started.stderr}`);
  },
  async cleanup({ sandbox }) {
    // The sandbox is destroyed after the rollout anyway; a real task might stop a database cleanly here.
    await sandbox.exec({ command: 'kill "$(cat service.pid)" 2>/dev/null; true' });
  },
  parser: lastCodeBlock('python'),
  stopWhen: answerParses(),
  rubric: [
    { name: 'checks_pass', weight: 1, score: fixedModulePasses },
    { name: 'check_runs', weight: 0, score: ({ state }) => state.checkRuns },
  ],
  systemPrompt: 'You fix bugs in Python modules. Read the module with read_file, run the checker with run_checks, then reply with the fixed module.',
  maxTurns: 6,
  limits: { toolTimeoutMs: 30_000, rolloutTimeoutMs: 120_000 },
});

export const agents = bugfixAgents;
