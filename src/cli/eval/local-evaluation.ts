/**
 * `corral eval` in this process: the environment's tools (backend, images, a CLI agent's install) opened before the
 * run directory exists, so a refused start leaves no folder behind, and the local executor over them.
 */
import { localExecutor } from '../../runner/run/local-executor.js';
import type { EvalExecution } from './eval-flow.js';
import type { EvalOptions } from './eval-options.js';
import { openEnvironmentTools } from './environment-tools.js';
import type { PreparedRun } from './prepare-run.js';
import { runMetadata } from './run-metadata.js';
import { recordingToolSchemas } from './tool-schemas.js';
import { setUpCanaries } from './canary-setup.js';

export async function localEvaluation(run: PreparedRun, options: EvalOptions, startedAt: number, log: (line: string) => void): Promise<EvalExecution> {
  const { command, environment, agent, examples } = run;
  const { runtime, rollouts } = await openEnvironmentTools(environment, run.config, {
    ...(command.env_args.corpus ? { corpus: command.env_args.corpus } : {}),
    log,
    agent,
  });
  const metadata = runMetadata(run, options, runtime.backend, startedAt);
  const executor = localExecutor({
    environment,
    // Keeps the tool schemas the model was offered in metadata.json (corral export sft writes them).
    agent: recordingToolSchemas(agent, metadata),
    rollouts,
    ...(Object.keys(run.roleAgents).length > 0 ? { roleAgents: run.roleAgents } : {}),
    ...(command.seed === null ? {} : { seed: command.seed }),
  });
  // A resumed run keeps the rate it started with unless --canaries gives one.
  const storedRate = (run.previous?.['canaries'] as { rate?: unknown } | undefined)?.rate;
  const rate = options.canaries ?? (typeof storedRate === 'number' ? storedRate : undefined);
  const canaries = rate === undefined ? undefined : setUpCanaries({ environment, rollouts, moduleAgents: run.moduleAgents, rate, log });
  const canaryLine = canaries ? `, canaries ${rate} (oracle ${canaries.oracle.name}, floor ${canaries.floor.name})` : '';
  return {
    executor,
    metadata,
    describe: `${environment.name}: ${examples.length} examples x ${command.rollouts_per_example} rollouts, agent ${agent.name} (${agent.model}), backend ${runtime.backend}${canaryLine}`,
    cancelling: 'finishing in-flight rollouts and releasing sandboxes',
    ...(canaries ? { canaries: { runner: canaries.runner, rate: canaries.rate } } : {}),
    // A rollout that waited for a sandbox because the pool was full: more rollouts in flight would only wait too.
    observeLoad: (observer) =>
      runtime.pool.onAcquireWait((event) => {
        if (event.atCapacity) observer.observe({ kind: 'sandbox-wait', startedAtMs: event.startedAtMs, waitMs: event.waitMs });
      }),
    close: async () => {
      await agent.close?.().catch(() => undefined);
      await canaries?.oracle.close?.().catch(() => undefined);
      await runtime.close();
    },
  };
}
