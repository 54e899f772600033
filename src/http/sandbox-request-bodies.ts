/**
 * What POST /v1/sandboxes accepts, strictly, and answers that name the field at fault. Keys are snake_case
 * like the rest of the /v1 JSON API (ttl_ms, env_vars).
 */
import { z } from 'zod';

/** Shortest handle TTL: below it a handle would expire between a client's create and its first call. */
export const MIN_HANDLE_TTL_MS = 1_000;
/** Most files uploaded by one create (each also bounded by the request body limit). */
export const MAX_CREATE_FILES = 256;

const uploadSchema = z
  .object({
    /** Relative to the sandbox workspace; paths that leave it are refused by the sandbox. */
    path: z.string().min(1),
    content: z.string(),
    encoding: z.enum(['utf8', 'base64']).default('utf8'),
  })
  .strict();

export const createSandboxBodySchema = z
  .object({
    /** Environment name, e.g. "python" (GET /healthz lists them). */
    env: z.string().min(1),
    /** Idle TTL of this handle: released after this long without a call. Default and maximum: the server's idleTtlMs. */
    ttl_ms: z.number().int().positive().optional(),
    /** Environment variables of the handle's sandbox processes. */
    env_vars: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a shell variable name'), z.string()).optional(),
    /** Files written into the workspace before the create answers. */
    files: z.array(uploadSchema).max(MAX_CREATE_FILES).optional(),
  })
  .strict();

export type CreateSandboxBody = z.output<typeof createSandboxBodySchema>;

export interface FieldError {
  code: 'INVALID_BODY';
  message: string;
  /** Dotted paths of the fields at fault, e.g. ["ttl_ms"] or ["files.0.path"]. */
  fields: string[];
}

/** One message naming every bad or unknown field, e.g. `ttl_ms: expected number, received string; unknown field "ttl"`. */
export function describeBodyError(error: z.ZodError): FieldError {
  const fields: string[] = [];
  const parts = error.issues.map((issue) => {
    const at = issue.path.join('.');
    if (issue.code === 'unrecognized_keys') {
      const names = issue.keys.map((key) => (at ? `${at}.${key}` : key));
      fields.push(...names);
      return `unknown field${names.length > 1 ? 's' : ''} ${names.map((name) => `"${name}"`).join(', ')}`;
    }
    fields.push(at || '(body)');
    return `${at || 'body'}: ${issue.message}`;
  });
  return { code: 'INVALID_BODY', message: `${parts.join('; ')} (accepted: env, ttl_ms, env_vars, files)`, fields };
}
