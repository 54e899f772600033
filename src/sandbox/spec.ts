import { z } from 'zod';
import { stableHash } from '../core/stable-hash.js';
import { DEFAULT_SANDBOX_IMAGE } from '../core/sandbox-defaults.js';

export const BACKEND_NAMES = ['docker', 'process', 'isolate'] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];

/**
 * What a sandbox must be. Two specs with the same hash are interchangeable, so the pool keys warm sandboxes by it.
 * Units are in the names. Defaults live here and nowhere else.
 */
export const sandboxSpecSchema = z
  .object({
    backend: z.enum(BACKEND_NAMES).default('process'),
    /** Docker image reference (docker backend only). */
    image: z.string().min(1).default(DEFAULT_SANDBOX_IMAGE),
    memoryMiB: z.number().int().min(16).max(65536).default(512),
    /** CPU quota in cores (docker backend: NanoCpus; process backend: not enforced). */
    cpus: z.number().positive().max(64).default(1),
    pidsLimit: z.number().int().min(8).max(65536).default(256),
    /** Size of the tmpfs workspace and /tmp in MiB (docker backend). */
    workspaceMiB: z.number().int().min(1).max(65536).default(256),
    /** 'none' gives the sandbox no network at all; 'egress' allows outbound traffic. */
    network: z.enum(['none', 'egress']).default('none'),
    /** After release: destroy and replace (no state can cross episodes), or reset in place and verify. */
    reuse: z.enum(['destroy', 'reset']).default('destroy'),
    /** Environment variables for commands run in the sandbox. */
    env: z.record(z.string(), z.string()).default({}),
    /** Hard lifetime of one sandbox; the in-sandbox agent kills itself when it passes (dead-man switch). */
    maxLifetimeMs: z
      .number()
      .int()
      .positive()
      .default(60 * 60 * 1000),
    /** Process backend only: run without bubblewrap. Refused unless set explicitly. */
    allowUnsandboxed: z.boolean().default(false),
  })
  .strict();

export type SandboxSpecInput = z.input<typeof sandboxSpecSchema>;
export type SandboxSpec = Readonly<z.output<typeof sandboxSpecSchema>>;

export function parseSandboxSpec(input: SandboxSpecInput = {}): SandboxSpec {
  return Object.freeze(sandboxSpecSchema.parse(input));
}

/** Hash of everything that makes sandboxes interchangeable. */
export function specHash(spec: SandboxSpec): string {
  return stableHash(spec);
}
