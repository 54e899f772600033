/**
 * What an agent that runs inside the rollout's sandbox (a CLI coding agent) asks of that sandbox, and what it is
 * given to work there. The serving side merges the needs into the environment's and example's sandbox spec before
 * the rollout leases, so the agent, the environment's tools, its hooks and its rubric share one sandbox.
 */
import type { EnvironmentSandbox } from '../contract/rollout-context.js';

/** A host folder bind-mounted read-only into the sandbox (a target under /opt/, as SandboxSpec readOnlyMounts). */
export interface AgentSandboxMount {
  source: string;
  target: string;
}

export interface AgentSandboxNeeds {
  /** The backend that can give the agent its mounts. A run on another backend is refused before the first rollout. */
  backend: 'docker';
  /** At least this much memory (the larger of this and the environment's). */
  memoryMiB?: number;
  /** Host folders the agent runs from (its install tree), mounted read-only. */
  readOnlyMounts?: readonly AgentSandboxMount[];
  /**
   * When set, each rollout gets a fresh host folder of its own, mounted read-only at this path, where the agent
   * serves unix sockets (its model proxy, its MCP tools): the sandbox keeps network none and reaches only these.
   */
  socketsTarget?: string;
}

/** The rollout's sandbox as the agent sees it (AgentRunInput.sandbox). */
export interface AgentSandbox {
  /** The rollout's restricted sandbox: the one the environment's tools, hooks and rubric use. */
  session: EnvironmentSandbox;
  /** Host path of this rollout's socket folder (AgentSandboxNeeds.socketsTarget), else null. */
  socketsDirectory: string | null;
}
