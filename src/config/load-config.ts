import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { type DeepReadonly, deepFreeze } from '../core/deep-freeze.js';
import { CorralError } from '../core/errors.js';
import { type CorralConfigShape, corralConfigSchema } from './schema.js';

export type CorralConfig = DeepReadonly<CorralConfigShape>;

export interface ConfigSource {
  path: [keyof CorralConfigShape, string];
  /** A flag some command registers (test/unit/config-docs.test.ts checks), so messages that name it can be acted on. */
  flag: string;
  env: string;
  parse?: (text: string) => unknown;
}

/** Where each setting can come from: `path` in the config object, the flag, and the environment variable. */
export const CONFIG_SOURCES: readonly ConfigSource[] = [
  { path: ['sandbox', 'backend'], flag: '--backend', env: 'CORRAL_BACKEND' },
  { path: ['sandbox', 'dockerSocketPath'], flag: '--docker-socket', env: 'CORRAL_DOCKER_SOCKET' },
  { path: ['sandbox', 'image'], flag: '--image', env: 'CORRAL_IMAGE' },
  { path: ['sandbox', 'minIdle'], flag: '--min-idle', env: 'CORRAL_MIN_IDLE', parse: Number },
  { path: ['sandbox', 'max'], flag: '--max-sandboxes', env: 'CORRAL_MAX_SANDBOXES', parse: Number },
  { path: ['sandbox', 'reuse'], flag: '--reuse', env: 'CORRAL_REUSE' },
  { path: ['sandbox', 'sandboxUid'], flag: '--sandbox-uid', env: 'CORRAL_SANDBOX_UID', parse: Number },
  { path: ['server', 'host'], flag: '--host', env: 'CORRAL_HOST' },
  { path: ['server', 'port'], flag: '--port', env: 'CORRAL_PORT', parse: Number },
  { path: ['server', 'token'], flag: '--token', env: 'CORRAL_TOKEN' },
  { path: ['server', 'idleTtlMs'], flag: '--idle-ttl-ms', env: 'CORRAL_IDLE_TTL_MS', parse: Number },
  { path: ['server', 'episodeIdleTtlMs'], flag: '--episode-idle-ttl-ms', env: 'CORRAL_EPISODE_IDLE_TTL_MS', parse: Number },
  { path: ['data', 'dataDir'], flag: '--data-dir', env: 'CORRAL_DATA_DIR' },
  { path: ['cache', 'dir'], flag: '--cache-dir', env: 'CORRAL_CACHE_DIR' },
  { path: ['environments', 'loadTimeoutMs'], flag: '--env-load-timeout-ms', env: 'CORRAL_ENV_LOAD_TIMEOUT_MS', parse: Number },
];

export interface LoadConfigOptions {
  /** Values from CLI flags, keyed by flag name without dashes in camelCase as commander gives them (e.g. `backend`, `dataDir`). */
  flags?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  /** JSON config file; also read from CORRAL_CONFIG. */
  configFile?: string;
}

const camel = (flag: string) => flag.replace(/^--/, '').replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** Resolves flag > env > file > default once, validates strictly, and returns a deep-frozen config. */
export function loadConfig(options: LoadConfigOptions = {}): CorralConfig {
  const env = options.env ?? process.env;
  const file = options.configFile ?? env.CORRAL_CONFIG;
  const merged: Record<string, Record<string, unknown>> = file ? readConfigFile(file) : {};
  for (const source of CONFIG_SOURCES) {
    const [section, key] = source.path;
    const flagValue = options.flags?.[camel(source.flag)];
    const envValue = env[source.env];
    const value = flagValue !== undefined ? flagValue : envValue !== undefined && envValue !== '' ? (source.parse ?? String)(envValue) : undefined;
    if (value !== undefined) (merged[section] ??= {})[key] = typeof value === 'string' && source.parse ? source.parse(value) : value;
  }
  const parsed = corralConfigSchema.safeParse(merged);
  if (!parsed.success) throw new CorralError('CFG_ERR_INVALID', describeIssues(parsed.error), { details: { issues: parsed.error.issues } });
  return deepFreeze(parsed.data);
}

function readConfigFile(path: string): Record<string, Record<string, unknown>> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, unknown>>;
  } catch (error) {
    throw new CorralError('CFG_ERR_INVALID', `cannot read config file ${path} (CORRAL_CONFIG): ${(error as Error).message}`);
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const source = CONFIG_SOURCES.find((candidate) => candidate.path.join('.') === issue.path.join('.'));
      const where = source ? ` (set ${source.flag} or ${source.env})` : '';
      return `${issue.path.join('.') || 'config'}: ${issue.message}${where}`;
    })
    .join('; ');
}
