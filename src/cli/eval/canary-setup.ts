/**
 * Live canaries' wiring for a local run (`corral eval --canaries RATE`) and the rollout API (`canaries` field): the
 * oracle `corral env check` would pick (the module's oracle|reference|solver|fixer, a built-in oracle written for the
 * environment, else the reference-answer agent) and the empty-answer floor, each behind a local executor over the
 * run's own rollout factory, so canaries use the run's tools, sandboxes, setup and rubric.
 */
import { chooseOracleName, emptyAnswerAgent, referenceAnswerAgent } from '../../environment-check/check-agents.js';
import { maximumReward } from '../../environment-check/reward-checks.js';
import type { Agent } from '../../runner/agents/agent.js';
import { builtInAgentNotes } from '../../runner/agents/baseline/baseline-agents.js';
import type { Environment } from '../../runner/contract/environment.js';
import type { EnvironmentRolloutFactory } from '../../runner/contract/environment-rollout.js';
import type { CanaryRunner } from '../../runner/run/canaries/canary-contract.js';
import { createCanaryRunner } from '../../runner/run/canaries/canary-runner.js';
import { localExecutor } from '../../runner/run/local-executor.js';
import { createAgent } from './agent-factory.js';
import type { AgentFactories } from './module-agents.js';

export interface Canaries {
  runner: CanaryRunner;
  rate: number;
  /** The agents, for the run's first line and for closing. */
  oracle: Agent;
  floor: Agent;
}

export function setUpCanaries(input: {
  environment: Environment;
  rollouts: EnvironmentRolloutFactory;
  moduleAgents: AgentFactories;
  rate: number;
  log: (line: string) => void;
}): Canaries {
  const { environment, moduleAgents } = input;
  const builtInFits = builtInAgentNotes['oracle']?.environments.includes(environment.name) ?? false;
  const oracleName = chooseOracleName(undefined, Object.keys(moduleAgents), builtInFits);
  const oracle =
    oracleName === null
      ? referenceAnswerAgent()
      : createAgent({ agent: oracleName, model: null, baseUrl: null, samplingArgs: {}, modelTimeoutS: 60, modelRetries: 0 }, moduleAgents, input.log);
  const floor = emptyAnswerAgent();
  const runner = createCanaryRunner({
    rate: input.rate,
    oracle: localExecutor({ environment, agent: oracle, rollouts: input.rollouts }),
    floor: localExecutor({ environment, agent: floor, rollouts: input.rollouts }),
    maximumReward: maximumReward(environment.rubric),
  });
  return { runner, rate: input.rate, oracle, floor };
}
