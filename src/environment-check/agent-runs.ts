/**
 * Runs one agent over the checked examples through the one run driver (runEvaluation), one rollout per example,
 * and keeps what the checks read: the records, and the tools as the agent saw them (name, description, schema).
 * In an environment with roles, `roleAgents` says who plays each role (the records then hold every role's reward).
 */
import type { Agent } from '../runner/agents/agent.js';
import type { Environment, Example } from '../runner/contract/environment.js';
import type { EnvironmentRolloutFactory } from '../runner/contract/environment-rollout.js';
import type { ToolInfo } from '../runner/contract/tool-access.js';
import { runEvaluation } from '../runner/scheduler/run-evaluation.js';
import type { ResultRecord } from '../runner/trajectory/result-record.js';

/** Opens rollouts of an environment in this process (the CLI passes what `corral eval` uses); close releases sandboxes. */
export type OpenRollouts = (environment: Environment) => Promise<{ rollouts: EnvironmentRolloutFactory; close(): Promise<void> }>;

export interface AgentRun {
  records: ResultRecord[];
  /** The tools of the first rollout, as listed to the agent; null when no agent got to run. */
  tools: readonly ToolInfo[] | null;
}

export async function runAgent(options: {
  environment: Environment;
  agent: Agent;
  /** Environments with roles: the agent of each role named here; the others play `agent`. */
  roleAgents?: Readonly<Record<string, Agent>>;
  examples: readonly Example[];
  openRollouts: OpenRollouts;
  concurrency: number;
  abortSignal: AbortSignal;
}): Promise<AgentRun> {
  let tools: readonly ToolInfo[] | null = null;
  // A new object, not a spread: class agents keep their methods on the prototype.
  const listening = (agent: Agent): Agent => ({
    name: agent.name,
    model: agent.model,
    ...(agent.takesEnvironmentReplies ? { takesEnvironmentReplies: true } : {}),
    ...(agent.sandboxNeeds ? { sandboxNeeds: () => agent.sandboxNeeds!() } : {}),
    run: (input) => {
      tools ??= input.tools.tools;
      return agent.run(input);
    },
  });
  const roleAgents = options.roleAgents ? Object.fromEntries(Object.entries(options.roleAgents).map(([role, agent]) => [role, listening(agent)])) : undefined;
  const agents = new Set([options.agent, ...Object.values(options.roleAgents ?? {})]);
  const records: ResultRecord[] = [];
  const opened = await options.openRollouts(options.environment);
  try {
    await runEvaluation({
      environment: options.environment,
      agent: listening(options.agent),
      ...(roleAgents ? { roleAgents } : {}),
      rollouts: opened.rollouts,
      examples: options.examples,
      rolloutsPerExample: 1,
      concurrency: options.concurrency,
      abortSignal: options.abortSignal,
      onGroup: (group) => records.push(...group),
    });
  } finally {
    await opened.close();
    for (const agent of agents) await agent.close?.();
  }
  return { records, tools };
}
