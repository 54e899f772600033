/**
 * The tool side of running an environment in this process, shared by `corral eval` and the runner benchmarks:
 * the sandbox runtime (backend, pool, wiki index) and a factory of in-memory MCP tool sessions, one per rollout.
 */
import type { CorralConfig } from '../../config/load-config.js';
import type { Agent } from '../../runner/agents/agent.js';
import type { Environment } from '../../runner/contract/environment.js';
import type { EnvironmentRolloutFactory } from '../../runner/contract/environment-rollout.js';
import type { ToolSessionFactory } from '../../runner/contract/tool-session.js';
import { resolveCorpusPaths } from '../../runner/environments/wiki-search/corpus-paths.js';
import { toolsForToolsets } from '../../mcp/toolsets.js';
import { type ToolRuntime, startToolRuntime } from '../runtime/tool-runtime.js';
import { environmentRolloutFactory } from '../runtime/environment-rollouts.js';
import { assertAgentSandboxFits } from '../runtime/agent-sandbox-spec.js';
import { exampleSandboxSource } from '../runtime/example-sandbox-source.js';
import { inProcessToolSessions } from './in-process-tools.js';

export interface EnvironmentTools {
  runtime: ToolRuntime;
  /** Per rollout: the environment's session (its own tools, setup, cleanup, per-example sandbox). What corral eval runs. */
  rollouts: EnvironmentRolloutFactory;
  /** Plain tool sessions over the toolsets alone (benchmarks of toolset-only environments). */
  tools: ToolSessionFactory;
}

/** `--corpus` flags win, then the data directory's corpora, then what the environment module named itself. */
export function corpusFor(environment: Environment, flags: string[] | undefined, dataDir: string | undefined): string[] {
  if (!environment.toolsets.includes('wiki')) return [];
  const resolved = resolveCorpusPaths({ args: { corpus: flags }, dataDir });
  if (resolved.length > 0) return resolved;
  const named = environment.options.corpus;
  return Array.isArray(named) ? named.map(String) : [];
}

export async function openEnvironmentTools(
  environment: Environment,
  config: CorralConfig,
  options: { corpus?: string[]; log: (line: string) => void; agent?: Pick<Agent, 'name' | 'sandboxNeeds'> },
): Promise<EnvironmentTools> {
  // An agent that runs inside the sandbox (a CLI agent) is checked before any sandbox starts: installed, and a backend that mounts.
  const agentNeeds = await options.agent?.sandboxNeeds?.();
  const corpusPaths = corpusFor(environment, options.corpus, config.data.dataDir);
  const runtime = await startToolRuntime(config, {
    corpusPaths,
    minIdle: 0,
    loadWiki: corpusPaths.length > 0,
    log: options.log,
    specOverrides: environment.sandbox,
  });
  const agentSandbox = agentNeeds && options.agent ? { name: options.agent.name, needs: agentNeeds } : undefined;
  if (agentSandbox) {
    try {
      assertAgentSandboxFits(runtime.specs.general, agentSandbox.needs, agentSandbox.name);
    } catch (error) {
      await runtime.close();
      throw error;
    }
  }
  const toolsetTools = toolsForToolsets(environment.toolsets, { wiki: runtime.wiki });
  return {
    runtime,
    rollouts: environmentRolloutFactory({
      environment,
      toolsetTools,
      sandboxSourceFor: (example, agent) => exampleSandboxSource(runtime, environment, example, agent ? { agent } : {}),
      ...(agentSandbox ? { agentSandbox } : {}),
    }),
    tools: inProcessToolSessions(toolsetTools, runtime.sandboxSource),
  };
}
