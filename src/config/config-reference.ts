/**
 * What each config key and environment variable means, beside the schema that validates them. docs/configuration.md
 * and the `corral --help` epilogue are generated from this and from the zod schema itself (types, bounds, defaults),
 * so they cannot drift: test/unit/config-docs.test.ts fails on a schema key without a row here.
 */
import { z } from 'zod';
import { CONFIG_SOURCES } from './load-config.js';
import { corralConfigSchema } from './schema.js';

/** One line per config key, by its dotted path. A key may instead carry zod's .describe()/.meta({description}). */
export const CONFIG_KEY_DOCS: Readonly<Record<string, string>> = {
  'sandbox.backend':
    'Sandbox backend for python/shell/files tools: `docker`, `process` (bubblewrap) or `auto` (docker when a daemon answers and the image exists, else process). A named backend that cannot work here is refused at startup.',
  'sandbox.dockerSocketPath': 'Docker daemon socket. Unset: a `unix://` DOCKER_HOST, else /var/run/docker.sock.',
  'sandbox.image': 'Docker image of the sandboxes (build it with `corral images build --offline`).',
  'sandbox.minIdle': 'Warm sandboxes `corral serve` keeps ready, so a first tool call does not wait for a create.',
  'sandbox.max': 'Most sandboxes alive at once per sandbox spec (idle, leased and being created); acquires beyond it wait in a FIFO queue.',
  'sandbox.acquireTimeoutMs': 'How long a tool call waits for a free sandbox before failing with POOL_ERR_ACQUIRE_TIMEOUT.',
  'sandbox.reuse': 'After a sandbox is released: `destroy` it (no state can cross sessions), or `reset` it in place and verify it clean.',
  'sandbox.idleTimeoutMs': 'Idle sandboxes above minIdle are destroyed after waiting this long (the leftovers of a burst); 0 keeps them.',
  'sandbox.sandboxUid':
    'The uid (and gid) process-backend sandboxes run as, inside bubblewrap and, when corral is root, on the host. Never 0 (refused). Pick one no host account uses: its processes could signal sandboxed ones.',
  'server.host': 'Interface to bind. Anything beyond 127.0.0.1 is reachable from other machines: set a token.',
  'server.port': 'TCP port to listen on; 0 picks a free one (the listening line on stderr names it).',
  'server.token': 'When set, every request except /healthz and /readyz needs `Authorization: Bearer <token>`.',
  'server.allowedHosts': 'Extra Host header values accepted besides localhost names and the bind address (DNS-rebinding guard).',
  'server.allowedOrigins': 'Extra Origin values accepted from browsers; requests without Origin are allowed.',
  'server.bodyLimitBytes': 'Largest request body accepted (413 beyond it); also bounds sandbox file uploads.',
  'server.idleTtlMs': 'Sandboxes of MCP sessions and sandbox handles unused this long are released.',
  'server.modelEndpointAllowlist':
    'Model endpoints POST /v1/rollouts may call: host names, IPs or CIDRs. Empty: any, except loopback, link-local and unspecified addresses when bound beyond 127.0.0.1.',
  'server.requestTimeoutMs': 'A request whose headers and body have not fully arrived after this long is answered 408 and its connection closed.',
  'server.firstRequestTimeoutMs': 'A connection that completes no request (not even its headers) within this long is closed.',
  'server.maxConnections':
    'Open connections in total, lowered to the descriptor budget (ulimit -n minus a quarter, at least 128, kept in reserve); at the cap the longest-idle one (never one used within the keep-alive timeout) is closed for a newcomer, else a typed 503.',
  'server.maxConnectionsPerAddress':
    "Open connections from one remote address (a session holds ~2; the default fits 1,024 sessions twice over), at most half of the total cap; at the cap that address's longest-idle one is closed for a newcomer, same rule.",
  'server.maxBufferedBytesPerConnection': 'A connection whose unsent output exceeds this stops being read until its client catches up.',
  'server.slowClientGraceMs': 'A connection that stays above maxBufferedBytesPerConnection this long is closed.',
  'server.maxSessionsPerPrincipal': 'MCP sessions one principal (token digest, or the remote address on a tokenless server) may hold; beyond it 429.',
  'server.maxHandlesPerPrincipal': 'Sandbox handles (POST /v1/sandboxes) one principal may hold; beyond it 429.',
  'server.maxLeasedSandboxesPerPrincipal': 'Sandboxes one principal may have leased at once; beyond it 429.',
  'server.maxRolloutRequestsPerPrincipal': 'Concurrent POST /v1/rollouts requests per principal; beyond it 429.',
  'server.maxEpisodesPerPrincipal': 'Episodes (POST /v1/episodes) one principal may hold open at once; beyond it 429.',
  'server.maxEpisodeForks':
    'Children one POST /v1/episodes/<id>/fork may ask for (n); more answers 400. Each child is an open episode of its principal, counted by maxEpisodesPerPrincipal.',
  'server.episodeIdleTtlMs':
    'An episode unused this long is released (its cleanup hook runs, its sandbox is freed); later calls answer 410 EPISODE_ERR_EXPIRED.',
  'data.dataDir': 'Folder with the evaluation data (wiki/, qa/, humaneval/, ...); `corral serve` loads wiki/*/pages.jsonl from it.',
  'cache.dir':
    "corral's cache folder. `corral env install` installs environment packages into its environment-packages/ folder (an npm prefix per package). Default: $XDG_CACHE_HOME/corral, else ~/.cache/corral.",
  'environments.loadTimeoutMs':
    'How long an environment or agent module may take to import (`corral eval`, `serve --env`, `env show`, a SIGHUP reload) before it fails with ENV_ERR_LOAD_TIMEOUT, instead of hanging on a top-level await that never settles.',
};

/** Environment variables read outside the config schema. */
export const OTHER_ENVIRONMENT_VARIABLES: readonly { name: string; doc: string }[] = [
  { name: 'CORRAL_CONFIG', doc: 'Path of a JSON config file ({"sandbox": {...}, "server": {...}, "data": {...}}); flags and variables override it.' },
  { name: 'CORRAL_LOG_LEVEL', doc: '`corral serve` request log level on stderr (JSON lines): trace, debug, info (default), warn, error or silent.' },
  { name: 'DOCKER_HOST', doc: 'Docker daemon (unix://, tcp://, ssh://) when sandbox.dockerSocketPath is unset.' },
  { name: 'CORRAL_DEBIAN_MIRROR', doc: '`corral images build --offline`: Debian mirror for the image build (default deb.debian.org).' },
  { name: 'OPENAI_API_KEY', doc: '`corral eval --agent openai`: the model API key when --api-key is not given (else "EMPTY", which vLLM and SGLang accept).' },
  { name: 'OPENAI_BASE_URL', doc: '`corral eval --agent openai`: the model endpoint when --base-url is not given (corral never guesses one).' },
];

export interface ConfigKeyReference {
  /** Dotted path in the config object / JSON file, e.g. `sandbox.minIdle`. */
  path: string;
  /** Type with its bounds, e.g. `integer >= 0` or `"auto" | "docker" | "process"`. */
  type: string;
  /** JSON of the default, or undefined when the key is unset by default. */
  defaultValue: string | undefined;
  flag: string | undefined;
  env: string | undefined;
  doc: string | undefined;
}

interface JsonSchemaNode {
  type?: string;
  enum?: unknown[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  items?: JsonSchemaNode;
  properties?: Record<string, JsonSchemaNode>;
}

/** Every leaf key of the config schema, in schema order. */
export function configKeyReference(): ConfigKeyReference[] {
  const root = z.toJSONSchema(corralConfigSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchemaNode;
  const rows: ConfigKeyReference[] = [];
  const visit = (node: JsonSchemaNode, path: string[]) => {
    if (node.type === 'object' && node.properties) {
      for (const [key, child] of Object.entries(node.properties)) visit(child, [...path, key]);
      return;
    }
    const dotted = path.join('.');
    const source = CONFIG_SOURCES.find((candidate) => candidate.path.join('.') === dotted);
    rows.push({
      path: dotted,
      type: describeType(node),
      defaultValue: node.default === undefined ? undefined : JSON.stringify(node.default),
      flag: source?.flag,
      env: source?.env,
      doc: CONFIG_KEY_DOCS[dotted] ?? node.description,
    });
  };
  visit(root, []);
  return rows;
}

function describeType(node: JsonSchemaNode): string {
  if (node.enum) return node.enum.map((value) => JSON.stringify(value)).join(' \\| ');
  if (node.type === 'array') return `array of ${node.items ? describeType(node.items) : 'any'}`;
  const bounds = [
    node.minimum !== undefined ? `>= ${node.minimum}` : undefined,
    node.exclusiveMinimum !== undefined ? `> ${node.exclusiveMinimum}` : undefined,
    node.maximum !== undefined && node.maximum < Number.MAX_SAFE_INTEGER ? `<= ${node.maximum}` : undefined,
    node.minLength ? 'non-empty' : undefined,
  ].filter((bound): bound is string => bound !== undefined);
  return [node.type ?? 'any', ...bounds].join(' ');
}

/** Every environment variable corral reads, config ones first, with what it sets. */
export function environmentVariables(): { name: string; doc: string }[] {
  const config = CONFIG_SOURCES.map((source) => ({ name: source.env, doc: `${source.path.join('.')} (flag ${source.flag})` }));
  return [...config, ...OTHER_ENVIRONMENT_VARIABLES];
}
