import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assertAgentSandboxFits, openAgentSockets, withAgentSandbox } from '../../../../src/cli/runtime/agent-sandbox-spec.js';
import { environmentRolloutFactory } from '../../../../src/cli/runtime/environment-rollouts.js';
import { rolloutSpecs } from '../../../../src/cli/runtime/example-sandbox-source.js';
import { CorralError } from '../../../../src/core/errors.js';
import type { SandboxSource } from '../../../../src/mcp/sandbox-source.js';
import type { AgentSandboxNeeds } from '../../../../src/runner/agents/agent-sandbox.js';
import { defineEnvironment } from '../../../../src/runner/contract/environment.js';

const NEEDS: AgentSandboxNeeds = {
  backend: 'docker',
  memoryMiB: 2048,
  readOnlyMounts: [{ source: '/cache/agents/codex-1', target: '/opt/corral/cli-agents/codex-1' }],
  socketsTarget: '/opt/corral/sockets',
};
const ENVIRONMENT = defineEnvironment({
  name: 'e',
  toolsets: [],
  dataset: () => [],
  rubric: [{ name: 'zero', weight: 1, score: () => 0 }],
  systemPrompt: '',
});

function refusal(run: () => unknown): CorralError {
  try {
    run();
  } catch (error) {
    if (CorralError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('an agent that runs inside the rollout sandbox, merged into its spec', () => {
  it('adds the docker needs: memory at least the agent’s, its mounts and the socket folder, no network, no reuse', () => {
    const merged = withAgentSandbox(
      { backend: 'docker', image: 'corral/python', memoryMiB: 512, reuse: 'reset', readOnlyMounts: [{ source: '/data', target: '/opt/data' }] },
      { needs: NEEDS, socketsDirectory: '/tmp/sockets-1' },
      'codex',
    );
    expect(merged).toEqual({
      backend: 'docker',
      image: 'corral/python',
      memoryMiB: 2048,
      reuse: 'destroy',
      network: 'none',
      readOnlyMounts: [
        { source: '/data', target: '/opt/data' },
        { source: '/cache/agents/codex-1', target: '/opt/corral/cli-agents/codex-1' },
        { source: '/tmp/sockets-1', target: '/opt/corral/sockets' },
      ],
    });
    expect(withAgentSandbox({ backend: 'docker', memoryMiB: 4096 }, { needs: NEEDS, socketsDirectory: null }, 'codex').memoryMiB).toBe(4096);
  });

  it('refuses a backend that cannot mount, and network egress, naming the fix', () => {
    const onProcess = refusal(() => assertAgentSandboxFits({ backend: 'process' }, NEEDS, 'codex'));
    expect(onProcess.code).toBe('SBX_ERR_UNSUPPORTED');
    expect(onProcess.message).toContain('--backend docker');
    expect(refusal(() => assertAgentSandboxFits({}, NEEDS, 'codex')).code).toBe('SBX_ERR_UNSUPPORTED');
    const egress = refusal(() => assertAgentSandboxFits({ backend: 'docker', network: 'egress' }, NEEDS, 'codex'));
    expect(egress.code).toBe('SBX_ERR_UNSUPPORTED');
    expect(egress.message).toContain('egress');
  });

  it('applies to an example’s own choices: an example that asks for egress is refused by name', () => {
    const specs = { general: { backend: 'docker' as const }, javascript: { backend: 'isolate' as const } };
    const example = { id: 'e1', prompt: 'p', sandbox: { network: 'egress' as const } };
    const agent = { name: 'codex', needs: NEEDS, socketsDirectory: '/tmp/s' };
    const error = refusal(() => rolloutSpecs(specs, { sandbox: {} }, example, { agent }));
    expect(error.message).toContain('example e1');
    expect(rolloutSpecs(specs, { sandbox: {} }, { id: 'e2', prompt: 'p' }, { agent }).general.readOnlyMounts).toHaveLength(2);
  });

  it('gives each rollout a socket folder of its own, in its spec, removed when the rollout closes', async () => {
    const seen: unknown[] = [];
    const source: SandboxSource = { acquire: () => Promise.reject(new Error('not leased in this test')) };
    const factory = environmentRolloutFactory({
      environment: ENVIRONMENT,
      toolsetTools: [],
      sandboxSourceFor: (_example, agent) => (seen.push(agent), source),
      agentSandbox: { name: 'codex', needs: NEEDS },
    });
    const first = await factory.open({ example: { id: 'a', prompt: 'p' } });
    const second = await factory.open({ example: { id: 'b', prompt: 'p' } });
    const directories = [first.agentSocketsDirectory, second.agentSocketsDirectory];
    expect(directories[0]).not.toBe(directories[1]);
    for (const directory of directories) expect(existsSync(directory!)).toBe(true);
    expect(seen).toEqual(directories.map((directory) => ({ name: 'codex', needs: NEEDS, socketsDirectory: directory })));
    await first.close();
    await second.close();
    for (const directory of directories) expect(existsSync(directory!)).toBe(false);
  });

  it('a rollout refused by its spec leaves no socket folder behind', async () => {
    const before = await openAgentSockets();
    await before.remove();
    let made: string | null = null;
    const factory = environmentRolloutFactory({
      environment: ENVIRONMENT,
      toolsetTools: [],
      sandboxSourceFor: (_example, agent) => {
        made = agent!.socketsDirectory;
        throw new CorralError('SBX_ERR_UNSUPPORTED', 'refused');
      },
      agentSandbox: { name: 'codex', needs: NEEDS },
    });
    await expect(factory.open({ example: { id: 'a', prompt: 'p' } })).rejects.toThrow('refused');
    expect(made).not.toBeNull();
    expect(existsSync(made!)).toBe(false);
    expect(existsSync(before.directory)).toBe(false);
  });
});
