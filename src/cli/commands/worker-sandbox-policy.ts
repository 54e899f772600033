/**
 * A queued job carries its example whole, and an example may choose its sandbox (image, limits, network). On a
 * worker that choice comes from whoever wrote the job into Redis, so it may only narrow the worker's own policy:
 * the runtime's spec with the sandbox fields of the environment loaded on the worker. Anything beyond it (egress
 * where the environment has none, another image, higher limits) is refused with QUEUE_ERR_JOB_REFUSED before any
 * sandbox starts. Environment variables are not policy and pass.
 */
import { CorralError } from '../../core/errors.js';
import type { RolloutJob } from '../../queue/rollout-job.js';
import type { Environment } from '../../runner/contract/environment.js';
import { type SandboxSpecInput, parseSandboxSpec } from '../../sandbox/spec.js';
import { exampleSpecFields } from '../runtime/example-sandbox-source.js';

const LIMITS = ['memoryMiB', 'cpus', 'pidsLimit', 'workspaceMiB'] as const;

export function assertJobWithinWorkerPolicy(job: RolloutJob, environment: Pick<Environment, 'name' | 'sandbox'>, general: SandboxSpecInput): void {
  let asked: SandboxSpecInput;
  try {
    asked = exampleSpecFields(job.example);
  } catch (error) {
    throw refusal(job, (error as Error).message);
  }
  const allowed = parseSandboxSpec({ ...general, ...(environment.sandbox as SandboxSpecInput) });
  const beyond: string[] = [];
  if (asked.network === 'egress' && allowed.network !== 'egress') beyond.push(`network egress (the environment allows ${allowed.network})`);
  if (asked.image !== undefined && asked.image !== allowed.image) beyond.push(`image ${asked.image} (the environment uses ${allowed.image})`);
  for (const limit of LIMITS) {
    const value = asked[limit];
    if (value !== undefined && value > allowed[limit]) beyond.push(`${limit} ${value} (the environment allows ${allowed[limit]})`);
  }
  if (beyond.length > 0)
    throw refusal(
      job,
      `its example asks for ${beyond.join(', ')}; a job cannot widen this worker's sandbox policy for ${environment.name}: such choices belong in the environment the worker loads (--env)`,
    );
}

function refusal(job: RolloutJob, reason: string): CorralError {
  return new CorralError('QUEUE_ERR_JOB_REFUSED', `rollout ${job.example.id}#${job.rollout_index} of run ${job.run_id} refused: ${reason}`, {
    details: { run_id: job.run_id, example: job.example.id },
  });
}
