/**
 * An agent that runs inside the rollout's sandbox (AgentSandboxNeeds: a CLI coding agent) merged into the rollout's
 * sandbox spec: the Docker backend (only it can mount), at least the agent's memory, its read-only install mounts
 * and the rollout's own socket folder, no network (the agent reaches its model and tools only through those
 * sockets) and no reuse. A spec that cannot give this is refused with SBX_ERR_UNSUPPORTED: up front for the run's spec, per
 * example for an example's own choices.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorralError } from '../../core/errors.js';
import type { AgentSandboxNeeds } from '../../runner/agents/agent-sandbox.js';
import type { SandboxSpecInput } from '../../sandbox/spec.js';

/** The agent's needs for one rollout, with the host folder of its sockets when the needs ask for one. */
export interface AgentRolloutSandbox {
  needs: AgentSandboxNeeds;
  socketsDirectory: string | null;
}

/** Throws SBX_ERR_UNSUPPORTED when `spec` cannot host the agent (another backend, or network egress). */
export function assertAgentSandboxFits(spec: SandboxSpecInput, needs: AgentSandboxNeeds, agentName: string, where = 'this run'): void {
  const backend = spec.backend ?? 'process';
  if (backend !== needs.backend) {
    throw new CorralError(
      'SBX_ERR_UNSUPPORTED',
      `--agent ${agentName} runs inside the rollout's sandbox from read-only mounts, which only the ${needs.backend} backend gives; ${where} uses the ${backend} backend: run with --backend ${needs.backend}`,
      { details: { agent: agentName, backend, needs: needs.backend } },
    );
  }
  if (spec.network === 'egress') {
    throw new CorralError(
      'SBX_ERR_UNSUPPORTED',
      `--agent ${agentName} keeps the sandbox without network (its model and tools come through mounted sockets); ${where} asks for network egress`,
      { details: { agent: agentName, network: spec.network } },
    );
  }
}

/** The rollout's general spec with the agent's needs merged in. */
export function withAgentSandbox(spec: SandboxSpecInput, agent: AgentRolloutSandbox, agentName: string, where?: string): SandboxSpecInput {
  assertAgentSandboxFits(spec, agent.needs, agentName, where);
  const sockets = agent.socketsDirectory && agent.needs.socketsTarget ? [{ source: agent.socketsDirectory, target: agent.needs.socketsTarget }] : [];
  const memoryMiB = Math.max(spec.memoryMiB ?? 0, agent.needs.memoryMiB ?? 0);
  return {
    ...spec,
    network: 'none',
    // The CLI's state under /tmp must not reach the next rollout, and a spec with this rollout's socket folder never recurs.
    reuse: 'destroy',
    ...(memoryMiB > 0 ? { memoryMiB } : {}),
    readOnlyMounts: [...(spec.readOnlyMounts ?? []), ...(agent.needs.readOnlyMounts ?? []), ...sockets],
  };
}

/** A fresh host folder for one rollout's sockets (readable by the sandbox user), and its removal. */
export async function openAgentSockets(): Promise<{ directory: string; remove(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'corral-agent-sockets-'));
  await chmod(directory, 0o755);
  return { directory, remove: () => rm(directory, { recursive: true, force: true }) };
}
