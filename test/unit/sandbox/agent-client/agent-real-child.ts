/** Starts the real in-sandbox agent as a plain child process (descendants scope) for unit tests of its behaviour. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentDirectoryPath } from '../../../../src/sandbox/agent-client/agent-directory.js';
import { AgentConnection } from '../../../../src/sandbox/agent-client/agent-connection.js';

export interface RealAgent {
  child: ChildProcessWithoutNullStreams;
  connection: AgentConnection;
  workspace: string;
  stop(): void;
}

/** `prepare` fills the workspace before the agent starts (it sees those files from its first call). */
export async function startRealAgent(options: { prepare?: (workspace: string) => void } = {}): Promise<RealAgent> {
  const root = mkdtempSync(join(tmpdir(), 'corral-agent-unit-'));
  const workspace = join(root, 'workspace');
  mkdirSync(workspace);
  options.prepare?.(workspace);
  const args = [
    '-u',
    '-B',
    `${agentDirectoryPath()}/agent.py`,
    '--workspace',
    workspace,
    '--process-scope',
    'descendants',
    '--scratch-dir',
    join(root, 'none'),
  ];
  const child = spawn('python3', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const connection = new AgentConnection({ writable: child.stdin, readable: child.stdout, sandboxId: 'sbx_unit', backend: 'process', workspace });
  await connection.ready({ timeoutMs: 20_000 });
  return {
    child,
    connection,
    workspace,
    stop: () => {
      child.kill('SIGKILL');
      rmSync(root, { recursive: true, force: true });
    },
  };
}
