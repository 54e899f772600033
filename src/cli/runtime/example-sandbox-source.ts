/**
 * The sandbox spec of one rollout: the runtime's general spec, then the environment's `sandbox` fields, then the
 * example's choices (image, limits, network, env). The pool keeps one bucket per distinct spec, so examples that
 * need different images get sandboxes of their own image; leases stay bounded by the rollouts in flight.
 */
import { z } from 'zod';
import { CorralError } from '../../core/errors.js';
import { DEFAULT_SANDBOX_IMAGE } from '../../core/sandbox-defaults.js';
import { poolSandboxSource, type SandboxSource, type SandboxSpecsByKind } from '../../mcp/sandbox-source.js';
import type { Environment, Example, ExampleSandbox } from '../../runner/contract/environment.js';
import type { SandboxPool } from '../../sandbox/pool/sandbox-pool.js';
import type { SandboxSpecInput } from '../../sandbox/spec.js';
import { type AgentRolloutSandbox, withAgentSandbox } from './agent-sandbox-spec.js';

const exampleSandboxSchema = z
  .object({
    image: z.string().min(1).optional(),
    limits: z
      .object({
        memoryMiB: z.number().int().positive().optional(),
        cpus: z.number().positive().optional(),
        pidsLimit: z.number().int().positive().optional(),
        workspaceMiB: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
    network: z.enum(['none', 'egress']).optional(),
    env: z.record(z.string(), z.string()).optional(),
  })
  .strict();

export interface ExampleSandboxOptions {
  /**
   * False for examples a remote client sent (episode API, POST /v1/rollouts inline examples): their sandbox
   * choices are ignored, so a client cannot ask for network egress or an image the operator did not choose.
   */
  trustExample?: boolean;
  /** An agent that runs inside the sandbox (a CLI agent): its needs are merged into the general spec. */
  agent?: AgentRolloutSandbox & { name: string };
}

/** The spec fields one example adds. Throws ENV_ERR_DATASET_INVALID naming the example when its `sandbox` is malformed. */
export function exampleSpecFields(example: Example): SandboxSpecInput {
  if (example.sandbox === undefined) return {};
  const parsed = exampleSandboxSchema.safeParse(example.sandbox);
  if (!parsed.success)
    throw new CorralError('ENV_ERR_DATASET_INVALID', `example ${example.id}: invalid sandbox choices: ${z.prettifyError(parsed.error)}`, {
      details: { example: example.id },
    });
  const chosen: ExampleSandbox = parsed.data;
  return {
    ...(chosen.image ? { image: chosen.image } : {}),
    ...chosen.limits,
    ...(chosen.network ? { network: chosen.network } : {}),
    ...(chosen.env ? { env: chosen.env } : {}),
  };
}

/** The general spec for this rollout; the JavaScript (isolate) spec is the runtime's. */
export function rolloutSpecs(
  specs: SandboxSpecsByKind,
  environment: Pick<Environment, 'sandbox'>,
  example: Example,
  options: ExampleSandboxOptions = {},
): SandboxSpecsByKind {
  const fromExample = options.trustExample === false ? {} : exampleSpecFields(example);
  const general: SandboxSpecInput = {
    ...specs.general,
    ...(environment.sandbox as SandboxSpecInput),
    ...fromExample,
    env: { ...specs.general.env, ...(environment.sandbox.env as Record<string, string> | undefined), ...fromExample.env },
  };
  // The process backend runs the host's own system: an example that asks for an image other than the rest get is
  // refused, never silently run on the host's python (the environment-wide image is as before: the backend's choice).
  const baseImage = (environment.sandbox.image as string | undefined) ?? specs.general.image ?? DEFAULT_SANDBOX_IMAGE;
  if (general.backend === 'process' && fromExample.image !== undefined && fromExample.image !== baseImage) {
    throw new CorralError(
      'SBX_ERR_UNSUPPORTED',
      `example ${example.id} asks for image ${fromExample.image}, and the process backend has no images: run with --backend docker`,
      { details: { example: example.id, image: fromExample.image } },
    );
  }
  if (options.agent) return { ...specs, general: withAgentSandbox(general, options.agent, options.agent.name, `example ${example.id}`) };
  return { ...specs, general };
}

export function exampleSandboxSource(
  runtime: { pool: Pick<SandboxPool, 'acquire'>; specs: SandboxSpecsByKind },
  environment: Pick<Environment, 'sandbox'>,
  example: Example,
  options: ExampleSandboxOptions = {},
): SandboxSource {
  return poolSandboxSource(runtime.pool, rolloutSpecs(runtime.specs, environment, example, options));
}
