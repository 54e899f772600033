/** The local executor: each rollout runs in this process (runRollout: the environment session, the agent, the rubric). */
import type { Agent } from '../agents/agent.js';
import type { Environment } from '../contract/environment.js';
import type { EnvironmentRolloutFactory } from '../contract/environment-rollout.js';
import type { ToolSessionFactory } from '../contract/tool-session.js';
import { refuseAgentWithoutReplies } from '../scheduler/environment-replies.js';
import { runRollout } from '../scheduler/run-rollout.js';
import { sharedSetupRollouts } from '../scheduler/shared-setup-rollouts.js';
import { toolSessionRollouts } from '../scheduler/tool-session-rollouts.js';
import type { RolloutExecutor } from './rollout-executor.js';

export interface LocalExecutorOptions {
  environment: Environment;
  agent: Agent;
  /** Opens each rollout's environment session; required for environments with their own tools, setup or cleanup. */
  rollouts?: EnvironmentRolloutFactory;
  /** Instead of `rollouts`, for environments of toolsets, dataset and rubric only. */
  tools?: ToolSessionFactory;
  seed?: number;
  /** In an environment with roles: the agent of each role named here; the other roles play `agent` (self-play). */
  roleAgents?: Readonly<Record<string, Agent>>;
}

export function localExecutor(options: LocalExecutorOptions): RolloutExecutor {
  // An environment that answers turns needs an agent that continues after a reply: refused here, before any rollout.
  refuseAgentWithoutReplies(options.environment, options.agent);
  // Refuses, before any rollout, an environment whose own tools or hooks a bare tool session cannot serve.
  const opened = options.rollouts ?? toolSessionRollouts(options.environment, options.tools!);
  // setupScope 'example': one setup per example, each rollout of the group opened from its checkpoint (a fork).
  const shared = options.environment.setupScope === 'example' ? sharedSetupRollouts(options.environment, opened) : undefined;
  const rollouts = shared ?? opened;
  return {
    ...(shared ? { plan: (example, count) => shared.plan(example, count), end: () => shared.clear() } : {}),
    run: ({ example, rolloutIndex, abortSignal }) =>
      runRollout({
        environment: options.environment,
        agent: options.agent,
        rollouts,
        ...(options.roleAgents ? { roleAgents: options.roleAgents } : {}),
        example,
        rolloutIndex,
        abortSignal,
        ...(options.seed === undefined ? {} : { seed: options.seed }),
      }),
  };
}
