import { z } from 'zod';

/**
 * task.toml, schema 1.x, as Harbor reads it. Objects are not strict on purpose: Harbor ignores keys it does
 * not know, so a task written for a newer Harbor still loads (zod strips them). Numbers are seconds or MB,
 * as the key names say. Defaults live in TASK_DEFAULTS, not here, so the TB v1 loader shares them.
 */
const positiveNumber = z.number().positive();
const stringMap = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String));
/** A user may be a name or a uid; Docker takes either as a string. */
const user = z.union([z.string().min(1), z.number().int().nonnegative().transform(String)]);

const healthcheckSchema = z.object({
  command: z.string().min(1),
  interval_sec: positiveNumber.default(5),
  timeout_sec: positiveNumber.default(30),
  retries: z.number().int().nonnegative().default(3),
  start_period_sec: z.number().nonnegative().default(0),
});

const artifactSchema = z.union([z.string().min(1), z.object({ source: z.string().min(1) }).transform((artifact) => artifact.source)]);

export const taskTomlSchema = z.object({
  schema_version: z.string().optional(),
  version: z.string().optional(),
  task: z.object({ name: z.string().min(1).optional() }).optional(),
  metadata: z.record(z.string(), z.unknown()).default({}),
  agent: z.object({ timeout_sec: positiveNumber.optional(), user: user.optional() }).default({}),
  verifier: z
    .object({
      timeout_sec: positiveNumber.optional(),
      env: stringMap.default({}),
      user: user.optional(),
      environment_mode: z.string().optional(),
    })
    .default({ env: {} }),
  environment: z
    .object({
      build_timeout_sec: positiveNumber.optional(),
      docker_image: z.string().min(1).optional(),
      cpus: positiveNumber.optional(),
      memory_mb: z.number().int().positive().optional(),
      storage_mb: z.number().int().positive().optional(),
      env: stringMap.default({}),
      workdir: z.string().startsWith('/').optional(),
      network_mode: z.enum(['no-network', 'public', 'allowlist']).optional(),
      /** Deprecated Harbor key: false means no-network. */
      allow_internet: z.boolean().optional(),
      healthcheck: healthcheckSchema.optional(),
    })
    .default({ env: {} }),
  artifacts: z.array(artifactSchema).default([]),
  /** Multi-step tasks: only detected, so they can be refused. */
  steps: z.array(z.unknown()).optional(),
});

export type TaskToml = z.infer<typeof taskTomlSchema>;

/** "environment.cpus: Too small..." for each issue: names the field a task author must fix. */
export function describeSchemaIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
}
