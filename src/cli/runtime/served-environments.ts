/**
 * The environments a `corral serve` process serves: the built-ins, plus the ones its operator named with
 * `--env <name|path>` (resolved once at startup by env-packaging's resolver: an installed package, a module file or
 * a package folder). Clients choose among these by name only; nothing a client sends is ever resolved or imported.
 * Environment arguments are bound per request (an episode's env_args) and the bound environments are cached.
 */
import { CorralError } from '../../core/errors.js';
import { stableStringify } from '../../core/stable-hash.js';
import type { EnvironmentCache } from '../../environment-packages/environment-cache.js';
import type { EnvironmentSource } from '../../environment-packages/environment-source.js';
import { resolveEnvironment } from '../../environment-packages/resolve-environment.js';
import type { Environment } from '../../runner/contract/environment.js';
import { type EnvironmentDefinition, bindEnvironmentArgs } from '../../runner/contract/environment-args.js';
import { builtInEnvironments } from '../../runner/environments/index.js';

export interface ServedEnvironment {
  readonly name: string;
  readonly definition: EnvironmentDefinition;
  /** Where it came from (metadata.json's env_source shape). */
  readonly source: EnvironmentSource | { kind: 'built-in'; name: string };
}

export interface ServedEnvironments {
  names(): string[];
  get(name: string): ServedEnvironment | undefined;
  /**
   * The environment bound to these arguments (validated by its argsSchema). Throws ENV_ERR_NOT_SERVED for a name
   * this server does not serve (a path included) and ENV_ERR_INVALID_ARGS for arguments its schema refuses.
   */
  bind(name: string, envArgs: Record<string, unknown> | undefined): Promise<Environment>;
  /** Every environment that binds without arguments, by name (POST /v1/rollouts binds through bind() for env_args). */
  withoutArguments(): Promise<Record<string, () => Environment>>;
  /** An operator reload (environment-reload.ts): later binds of `name` use this definition; bindings already made stay. */
  replace(environment: ServedEnvironment): void;
}

/** Distinct argument sets kept bound per server; a factory environment's create() runs once per set. */
const MAX_BOUND = 256;

export async function loadServedEnvironments(
  specs: readonly string[],
  options: { cache: EnvironmentCache; log: (line: string) => void; loadTimeoutMs?: number },
): Promise<ServedEnvironments> {
  const served = new Map<string, ServedEnvironment>();
  for (const [name, create] of Object.entries(builtInEnvironments)) served.set(name, { name, definition: create(), source: { kind: 'built-in', name } });
  for (const spec of specs) {
    const resolved = await resolveEnvironment(spec, {
      builtIns: builtInEnvironments,
      cache: options.cache,
      log: options.log,
      loadTimeoutMs: options.loadTimeoutMs,
    });
    const definition: EnvironmentDefinition = resolved.environment;
    // `--env python-code` names a built-in that is served anyway.
    if (resolved.source.kind === 'built-in') continue;
    const existing = served.get(definition.name);
    if (existing?.source.kind === 'built-in') {
      throw new CorralError(
        'ENV_ERR_NAME_TAKEN',
        `--env ${spec}: its environment is named '${definition.name}', the name of a built-in environment; serving it would replace the built-in for every client, so rename it`,
        { details: { name: definition.name, spec } },
      );
    }
    if (existing) {
      throw new CorralError('CFG_ERR_INVALID', `--env ${spec}: two environments are named ${definition.name}; serve only one of them`, {
        details: { name: definition.name },
      });
    }
    served.set(definition.name, { name: definition.name, definition, source: resolved.source });
    options.log(`serving environment ${definition.name} (${describeSource(resolved.source)})`);
  }
  return servedEnvironmentsOf(served);
}

/** ServedEnvironments over definitions already loaded (tests and benchmarks build them in process). */
export function servedEnvironmentsOf(initial: ReadonlyMap<string, ServedEnvironment>): ServedEnvironments {
  const served = new Map(initial);
  const bound = new Map<string, Promise<Environment>>();
  return {
    names: () => [...served.keys()],
    get: (name) => served.get(name),
    async bind(name, envArgs) {
      const environment = served.get(name);
      if (!environment) {
        throw new CorralError(
          'ENV_ERR_NOT_SERVED',
          `env: this server does not serve an environment named '${name}' (it serves ${[...served.keys()].join(', ')}); the operator chooses them with corral serve --env, clients name one`,
          { details: { field: 'env', available: [...served.keys()] } },
        );
      }
      const key = `${name}\u0000${stableStringify(envArgs ?? {})}`;
      let binding = bound.get(key);
      if (!binding) {
        binding = bindEnvironmentArgs(environment.definition, envArgs ?? {});
        bound.set(key, binding);
        // A refused argument set is not kept; the oldest binding goes when the cache is full.
        binding.catch(() => bound.delete(key));
        if (bound.size > MAX_BOUND) bound.delete(bound.keys().next().value!);
      }
      return binding;
    },
    async withoutArguments() {
      const bindings: Record<string, () => Environment> = {};
      for (const name of served.keys()) {
        const environment = await this.bind(name, undefined).catch(() => undefined);
        if (environment) bindings[name] = () => environment;
      }
      return bindings;
    },
    replace(environment) {
      if (!served.has(environment.name)) throw new Error(`replace: ${environment.name} is not served`);
      served.set(environment.name, environment);
      const prefix = `${environment.name}\u0000`;
      for (const key of [...bound.keys()]) if (key.startsWith(prefix)) bound.delete(key);
    },
  };
}

function describeSource(source: ServedEnvironment['source']): string {
  if (source.kind === 'package') return `package ${source.name}@${source.version}`;
  if (source.kind === 'module') return `module ${source.path}`;
  return 'built-in';
}
