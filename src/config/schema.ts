import { z } from 'zod';
import { DEFAULT_ACQUIRE_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_SANDBOX_IMAGE, DEFAULT_SANDBOX_UID, DEFAULT_POOL_MAX } from '../core/sandbox-defaults.js';

/** One strict schema per concern; defaults live here only. Units are in the names. */
export const sandboxConfigSchema = z
  .object({
    /** 'auto' picks docker when a daemon answers and the image exists, else process (bubblewrap). */
    backend: z.enum(['auto', 'docker', 'process']).default('auto'),
    /** Docker daemon socket; unset, a unix:// DOCKER_HOST, else /var/run/docker.sock (a default here would hide DOCKER_HOST). */
    dockerSocketPath: z.string().min(1).optional(),
    image: z.string().default(DEFAULT_SANDBOX_IMAGE),
    minIdle: z.number().int().min(0).default(2),
    max: z.number().int().min(1).default(DEFAULT_POOL_MAX),
    acquireTimeoutMs: z.number().int().positive().default(DEFAULT_ACQUIRE_TIMEOUT_MS),
    reuse: z.enum(['destroy', 'reset']).default('destroy'),
    /** Idle sandboxes above minIdle are destroyed after waiting this long (a burst's leftovers); 0 keeps them. */
    idleTimeoutMs: z.number().int().min(0).default(DEFAULT_IDLE_TIMEOUT_MS),
    /** uid (and gid) of process-backend sandboxes; never 0. */
    sandboxUid: z.number().int().min(1).max(4_294_967_294).default(DEFAULT_SANDBOX_UID),
  })
  .strict();

export const serverConfigSchema = z
  .object({
    host: z.string().default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(7777),
    /** Bearer token required on every request when set. */
    token: z.string().min(1).optional(),
    /** Extra Host header values accepted besides localhost names and the bind address. */
    allowedHosts: z.array(z.string()).default([]),
    /** Extra Origin values accepted (browsers); requests without Origin are allowed. */
    allowedOrigins: z.array(z.string()).default([]),
    bodyLimitBytes: z
      .number()
      .int()
      .positive()
      .default(4 * 1024 * 1024),
    /** Sandboxes of idle MCP sessions are released after this long. */
    idleTtlMs: z
      .number()
      .int()
      .positive()
      .default(10 * 60 * 1000),
    /**
     * Model endpoints POST /v1/rollouts may call: host names, IPs or CIDRs (e.g. "10.0.0.0/8"). Empty: any, except
     * loopback, link-local (metadata) and unspecified addresses when bound beyond 127.0.0.1. Non-empty: only these.
     */
    modelEndpointAllowlist: z.array(z.string().min(1)).default([]),
    // Limits against slow or greedy clients (docs/security.md).
    /** A request whose headers and body have not fully arrived after this long is answered 408 and its connection closed. */
    requestTimeoutMs: z.number().int().positive().default(60_000),
    /** A connection that completes no request (not even its headers) within this long is closed. */
    firstRequestTimeoutMs: z.number().int().positive().default(10_000),
    /** Open connections in total (twice one address's share); at the cap the oldest idle one is closed for a newcomer. */
    maxConnections: z.number().int().positive().default(8192),
    /**
     * Open connections from one remote address: room for 2x the 1,024 sessions a trainer runs at once (each holds
     * ~2: POST keep-alive + GET stream); at the cap that address's oldest idle one is closed for a newcomer.
     */
    maxConnectionsPerAddress: z.number().int().positive().default(4096),
    /** A connection whose unsent output exceeds this stops being read (HTTP and WebSocket) until its client catches up. */
    maxBufferedBytesPerConnection: z
      .number()
      .int()
      .positive()
      .default(4 * 1024 * 1024),
    /** A connection that stays above maxBufferedBytesPerConnection this long is closed. */
    slowClientGraceMs: z.number().int().positive().default(30_000),
    /**
     * Quotas per principal (bearer token digest, or remote address without a token); exceeding one answers 429.
     * Defaults sit above one busy trainer (a thousand sessions) and far below a flood (issue 7: 5,000 sessions, 20,000 handles).
     */
    maxSessionsPerPrincipal: z.number().int().positive().default(1024),
    maxHandlesPerPrincipal: z.number().int().positive().default(1024),
    maxLeasedSandboxesPerPrincipal: z.number().int().positive().default(1024),
    maxRolloutRequestsPerPrincipal: z.number().int().positive().default(16),
    /** Episodes (POST /v1/episodes) one principal holds open at once; each may hold a sandbox, so this bounds them too. */
    maxEpisodesPerPrincipal: z.number().int().positive().default(256),
    /** Children one POST /v1/episodes/<id>/fork may make (each also counts against maxEpisodesPerPrincipal). */
    maxEpisodeForks: z.number().int().positive().default(32),
    /** An episode nobody used for this long is released (cleanup hook, sandbox); a trainer's model turn must fit inside it. */
    episodeIdleTtlMs: z
      .number()
      .int()
      .min(1_000)
      .default(10 * 60 * 1000),
  })
  .strict();

export const dataConfigSchema = z
  .object({
    /** Folder with the evaluation data (wiki/, qa/, humaneval/, ...); see ../shared/data/README.md. */
    dataDir: z.string().optional(),
  })
  .strict();

export const cacheConfigSchema = z
  .object({
    /** corral's cache; installed environment packages live in <dir>/environments. Default $XDG_CACHE_HOME/corral or ~/.cache/corral. */
    dir: z.string().min(1).optional(),
  })
  .strict();

export const environmentsConfigSchema = z
  .object({
    /** An environment or agent module that has not finished importing after this long is ENV_ERR_LOAD_TIMEOUT (a top-level await that never settles). */
    loadTimeoutMs: z.number().int().positive().default(60_000),
  })
  .strict();

export const corralConfigSchema = z
  .object({
    sandbox: sandboxConfigSchema.default(sandboxConfigSchema.parse({})),
    server: serverConfigSchema.default(serverConfigSchema.parse({})),
    data: dataConfigSchema.default({}),
    cache: cacheConfigSchema.default({}),
    environments: environmentsConfigSchema.default(environmentsConfigSchema.parse({})),
  })
  .strict();

export type CorralConfigInput = z.input<typeof corralConfigSchema>;
export type CorralConfigShape = z.output<typeof corralConfigSchema>;
