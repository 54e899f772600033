/**
 * One queued job = one rollout: which run, which example (carried whole, so workers need not load the dataset),
 * which rollout index, the environment (name, source, args), the agent (name, model, endpoint, sampling; never the
 * API key: each worker takes its own from OPENAI_API_KEY), and what it needs from a worker (backend). Versioned:
 * a worker refuses a job written by an incompatible producer instead of guessing.
 */
import { z } from 'zod';
import { CorralError } from '../core/errors.js';
import type { Example } from '../runner/contract/environment.js';
import type { Capability } from './queue-keys.js';

export const ROLLOUT_JOB_VERSION = 1;

const exampleSchema = z
  .object({
    id: z.string().min(1),
    prompt: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]),
    answer: z.unknown().optional(),
    info: z.record(z.string(), z.unknown()).optional(),
    sandbox: z.record(z.string(), z.unknown()).optional(),
  })
  .passthrough();

export const rolloutJobSchema = z
  .object({
    version: z.literal(ROLLOUT_JOB_VERSION),
    run_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    example: exampleSchema,
    rollout_index: z.number().int().min(0),
    environment: z
      .object({
        /** environment.name: what workers hold and what placement routes on. */
        name: z.string().min(1),
        /** As the producer resolved it (a built-in name, a package name or a module path on the producer's machine). */
        source: z.string().min(1),
        args: z.record(z.string(), z.unknown()),
        /** --corpus paths as the producer gave them; a worker uses them when they exist on its machine. */
        corpus: z.array(z.string()).nullable(),
        max_turns: z.number().int().min(1).nullable(),
      })
      .strict(),
    agent: z
      .object({
        name: z.string().min(1),
        model: z.string().nullable(),
        base_url: z.string().nullable(),
        sampling_args: z.record(z.string(), z.unknown()),
        model_timeout_s: z.number().positive(),
        model_retries: z.number().int().min(0),
        /**
         * 'worker': the worker's own OPENAI_API_KEY (corral eval: the operator's endpoint). 'none': EMPTY, because
         * the endpoint is a remote client's choice (corral serve) and a worker's key must never be sent there.
         */
        api_key: z.enum(['worker', 'none']),
        /**
         * corral serve's model endpoint policy, applied again by the worker at connect time (the client chose the
         * URL): internal addresses refused unless allowlisted, upstream error text withheld from the record.
         */
        endpoint_guard: z
          .object({ refuse_internal: z.boolean(), allow: z.array(z.string()) })
          .strict()
          .nullable(),
      })
      .strict(),
    seed: z.number().int().nullable(),
    needs: z.object({ backend: z.enum(['docker', 'process', 'any']) }).strict(),
    /** A rollout API request's deadline (ISO 8601): a worker never starts the rollout after it (docs/rollouts-api.md). */
    deadline: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();

export type RolloutJob = Omit<z.output<typeof rolloutJobSchema>, 'example'> & { example: Example };

export function decodeRolloutJob(data: unknown): RolloutJob {
  const parsed = rolloutJobSchema.safeParse(data);
  if (!parsed.success) {
    const version = (data as { version?: unknown } | null)?.version;
    throw new CorralError(
      'QUEUE_ERR_INVALID_JOB',
      version !== ROLLOUT_JOB_VERSION
        ? `rollout job version ${JSON.stringify(version)}, this worker reads version ${ROLLOUT_JOB_VERSION}: run workers and producer from the same corral version`
        : `invalid rollout job: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  }
  return parsed.data as RolloutJob;
}

export const jobCapability = (job: Pick<RolloutJob, 'environment' | 'needs'>): Capability => ({
  environment: job.environment.name,
  backend: job.needs.backend,
});
