/**
 * One CLI agent run inside a sandbox that has no network, the one copy of this plumbing: the rollout's own sandbox in
 * `corral eval` (the one the environment's tools, hooks and rubric use), a terminal trial's container
 * (terminal-cli-agent.ts), or one leased here for the agents benchmark. The host side serves
 * two unix sockets in the rollout's socket folder: the recording model proxy (this rollout's own listener and key)
 * and corral's MCP tools. The folder is mounted read-only at /opt/corral/sockets; inside,
 * sandboxes/cli-bridge/socket_bridge.py relays 127.0.0.1:4000 and :4001 to them, since the CLIs speak TCP only.
 * The CLI's install tree comes from corral's cache through read-only mounts (cliAgentSandboxNeeds); its config,
 * state and logs go under /tmp/corral-cli, outside the graded workspace.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CliAgentDefinition, type CliInvocation, CLI_AGENT_SANDBOX_MEMORY_MIB } from '../../cli-agents/cli-agent.js';
import { cliAgentMounts, cliLauncher } from '../../cli-agents/agent-installation.js';
import { CLI_AGENTS_MOUNT_ROOT } from '../../cli-agents/cli-state.js';
import { NODE_RUNTIME } from '../../cli-agents/node-runtime.js';
import { installFolderName } from '../../cli-agents/installable-package.js';
import { loadConfig } from '../../config/load-config.js';
import { projectRoot } from '../../core/project-root.js';
import { buildServer } from '../../http/build-server.js';
import type { SandboxSource } from '../../mcp/sandbox-source.js';
import type { ToolCatalog } from '../../mcp/tool-catalog.js';
import type { ModelCall } from '../../model-proxy/model-call.js';
import type { ModelProxy } from '../../model-proxy/model-proxy.js';
import type { AgentSandboxNeeds } from '../../runner/agents/agent-sandbox.js';
import type { RolloutFailure } from '../../runner/trajectory/trajectory.js';
import type { TrajectoryRecorder } from '../../runner/trajectory/trajectory-recorder.js';
import type { Lease } from '../../sandbox/lease.js';
import type { SandboxPool } from '../../sandbox/pool/sandbox-pool.js';
import type { ExecResult, SandboxSession } from '../../sandbox/session.js';
import type { SandboxSpecInput } from '../../sandbox/spec.js';
import { openAgentSockets, withAgentSandbox } from '../runtime/agent-sandbox-spec.js';

export const SOCKETS_TARGET = '/opt/corral/sockets';
export const STATE_DIRECTORY = '/tmp/corral-cli';
export const BRIDGE_PATH = '/tmp/corral-bridge/socket_bridge.py';
export const MODEL_PORT = 4000;
export const MCP_PORT = 4001;
/** Connections the MCP socket accepts at once (the model socket's cap is the proxy's maxConnectionsPerRollout). */
export const MCP_SOCKET_MAX_CONNECTIONS = 32;

/**
 * What a CLI agent asks of the sandbox it runs in: Docker (for the mounts), 2 GiB, its install tree read-only and a
 * socket folder of its own. Throws CLI_AGENT_ERR_NOT_INSTALLED naming the install command.
 */
export async function cliAgentSandboxNeeds(agent: CliAgentDefinition, agentsCacheDirectory: string): Promise<AgentSandboxNeeds> {
  return {
    backend: 'docker',
    memoryMiB: CLI_AGENT_SANDBOX_MEMORY_MIB,
    readOnlyMounts: await cliAgentMounts(agent, agentsCacheDirectory),
    socketsTarget: SOCKETS_TARGET,
  };
}

export interface CliAgentRunOptions {
  agent: CliAgentDefinition;
  /** The sandbox the CLI runs in, made with cliAgentSandboxNeeds (its mounts and socket folder). */
  session: SandboxSession;
  /** Host path of the folder mounted at SOCKETS_TARGET in that sandbox. */
  socketsDirectory: string;
  proxy: ModelProxy;
  /** Tools served to the CLI over MCP (Streamable HTTP) at /mcp/<environmentName>. */
  catalog: ToolCatalog;
  /** Where the catalog's tools that need a sandbox get one. */
  toolSandboxSource: SandboxSource;
  environmentName: string;
  instruction: string;
  /** The model name the CLI is told (the proxy asks upstream for its own). */
  model: string;
  rolloutId?: string;
  trajectory?: TrajectoryRecorder;
  timeoutMs?: number;
  /** Stops the CLI (its process group is killed) when the rollout is cancelled or passes its time limit. */
  abortSignal?: AbortSignal;
  /** Runs after the CLI exited (e.g. read the workspace). */
  inspect?: (session: SandboxSession) => Promise<void>;
  /** Where the CLI runs (default /workspace, an environment sandbox's workspace; a trial runs in its task's workdir). */
  workdir?: string;
  /** Added to the CLI's process environment. */
  env?: Readonly<Record<string, string>>;
  /** Output kept of the CLI's stdout and stderr, each (default 1,000,000 characters). */
  maxOutputChars?: number;
  /**
   * Copies the CLI's session logs to this folder inside the sandbox (a trial's /logs/agent/sessions, collected with
   * the rest of /logs/agent) instead of returning them as a tar.
   */
  copyLogsTo?: string;
}

export interface CliAgentSandboxRunResult {
  exit: ExecResult;
  /** Every model call the proxy recorded for this run, in arrival order. */
  calls: ModelCall[];
  /** The proxy's per-rollout limit was passed (PROXY_ERR_ROLLOUT_LIMIT): the rollout is errored, its calls cut short. */
  limitFailure: RolloutFailure | null;
  /** The CLI's own session logs (tar of its log folders, base64), collected before the sandbox went away; '' with copyLogsTo. */
  logsTarBase64: string;
}

/** Runs the CLI once, headless, in `session`, and stops what it started (proxy listener, MCP server) in every case. */
export async function runCliAgent(options: CliAgentRunOptions): Promise<CliAgentSandboxRunResult> {
  const { socketsDirectory } = options;
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    const rollout = await options.proxy.openRollout({
      socketPath: join(socketsDirectory, 'model.sock'),
      ...(options.rolloutId ? { rolloutId: options.rolloutId } : {}),
      ...(options.trajectory ? { trajectory: options.trajectory } : {}),
    });
    cleanups.unshift(() => rollout.close());
    const mcpToken = randomBytes(24).toString('hex');
    const mcp = buildServer(loadConfig({ env: {}, flags: { token: mcpToken } }), {
      environments: options.catalog,
      sandboxSource: options.toolSandboxSource,
    });
    await listenOnAgentSocket(mcp, join(socketsDirectory, 'mcp.sock'));
    cleanups.unshift(() => mcp.close());

    const origin = `http://127.0.0.1:${MODEL_PORT}`;
    const invocation = options.agent.invocation(options.instruction, {
      endpoint: {
        baseUrl: options.agent.dialect === 'chat-completions' || options.agent.dialect === 'responses' ? `${origin}/v1` : origin,
        model: options.model,
        apiKey: rollout.apiKey,
      },
      mcpServers: [
        {
          name: 'corral',
          transport: 'http',
          url: `http://127.0.0.1:${MCP_PORT}/mcp/${options.environmentName}`,
          headers: { authorization: `Bearer ${mcpToken}` },
        },
      ],
      stateDirectory: STATE_DIRECTORY,
    });
    const session = options.session;
    await writeSandboxFile(session, BRIDGE_PATH, await readFile(join(projectRoot(), 'sandboxes/cli-bridge/socket_bridge.py'), 'utf8'));
    for (const file of invocation.files) await writeSandboxFile(session, file.path, file.content);
    const exit = await session.exec({
      command: ['bash', '-c', RUN_SCRIPT, 'corral-cli', options.workdir ?? '/workspace', ...cliLauncher(options.agent), ...invocation.arguments],
      // Claude Code refuses --dangerously-skip-permissions as root unless told it is in a sandbox (it always is here).
      env: { ...runEnvironment(options.agent, invocation), IS_SANDBOX: '1', ...options.env },
      stdin: invocation.stdin ?? '',
      timeoutMs: options.timeoutMs ?? 300_000,
      maxOutputChars: options.maxOutputChars ?? 1_000_000,
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
    // The CLI is done: what calls the model socket from now on is not the CLI (a process it left behind).
    await rollout.close();
    const calls = [...rollout.calls];
    const logsTarBase64 = options.copyLogsTo
      ? await copyLogs(session, invocation.logDirectories, options.copyLogsTo)
      : (
          await session.exec({
            command: [
              'bash',
              '-c',
              'tar -C / -c --ignore-failed-read "$@" 2>/dev/null | base64 -w0',
              'logs',
              ...invocation.logDirectories.map((path) => path.slice(1)),
            ],
            maxOutputChars: 20_000_000,
          })
        ).stdout;
    await options.inspect?.(session);
    return { exit, calls, limitFailure: rollout.limitFailure(), logsTarBase64 };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

export interface CliAgentSandboxRunOptions extends Omit<CliAgentRunOptions, 'session' | 'socketsDirectory' | 'toolSandboxSource'> {
  /** <cache>/agents, where `corral agents install` put the CLI. */
  agentsCacheDirectory: string;
  pool: Pick<SandboxPool, 'acquire'>;
  /** Spec fields of the sandbox (image, limits, env); the CLI's needs are merged in (withAgentSandbox). */
  spec: SandboxSpecInput;
}

/**
 * Without an environment rollout (the agents benchmark): leases a sandbox with the CLI's needs from `pool`, runs the
 * CLI there with the catalog's tools in that same sandbox, and releases the sandbox and its socket folder.
 */
export async function runCliAgentInSandbox(options: CliAgentSandboxRunOptions): Promise<CliAgentSandboxRunResult> {
  const needs = await cliAgentSandboxNeeds(options.agent, options.agentsCacheDirectory);
  const sockets = await openAgentSockets();
  try {
    const spec = withAgentSandbox({ ...options.spec, backend: 'docker' }, { needs, socketsDirectory: sockets.directory }, options.agent.name);
    const lease = await options.pool.acquire(spec);
    try {
      return await runCliAgent({
        ...options,
        session: lease.session,
        socketsDirectory: sockets.directory,
        // The CLI's own sandbox: its tools see the files its shell commands wrote. This run releases it, not the server.
        toolSandboxSource: { acquire: async () => borrowed(lease) },
      });
    } finally {
      await lease.release().catch(() => undefined);
    }
  } finally {
    await sockets.remove().catch(() => undefined);
  }
}

/** Copies the CLI's log folders that exist into `target` in the sandbox; a CLI that left none is fine. Returns ''. */
async function copyLogs(session: SandboxSession, logDirectories: readonly string[], target: string): Promise<string> {
  await session
    .exec({
      command: ['bash', '-c', 'mkdir -p "$1" && for d in "${@:2}"; do [ -d "$d" ] && cp -r "$d" "$1/" ; done; true', 'logs', target, ...logDirectories],
      timeoutMs: 30_000,
    })
    .catch(() => undefined);
  return '';
}

/**
 * Starts the bridge, waits for its "ready", then runs the CLI ("${@:2}") in the working directory ($1); the bridge
 * dies with the script. The state folders exist before the CLI starts, since some CLIs refuse a missing HOME.
 */
const RUN_SCRIPT = `
set -u
workdir=$1; shift
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CACHE_HOME"
python3 ${BRIDGE_PATH} ${MODEL_PORT}=${SOCKETS_TARGET}/model.sock ${MCP_PORT}=${SOCKETS_TARGET}/mcp.sock > /tmp/corral-bridge/bridge.log 2>&1 &
bridge=$!
trap 'kill $bridge 2>/dev/null' EXIT
for _ in $(seq 1 200); do grep -q ready /tmp/corral-bridge/bridge.log 2>/dev/null && break; sleep 0.05; done
cd "$workdir" || exit 97
"$@"
`;

export function runEnvironment(agent: CliAgentDefinition, invocation: CliInvocation): Record<string, string> {
  const nodeDirectory = `${CLI_AGENTS_MOUNT_ROOT}/${installFolderName(NODE_RUNTIME)}/${NODE_RUNTIME.binaryPath.replace(/\/node$/, '')}`;
  return {
    PATH: `${agent.needsNode ? `${nodeDirectory}:` : ''}/usr/local/bin:/usr/bin:/bin`,
    TERM: 'dumb',
    NO_COLOR: '1',
    ...agent.offlineEnv,
    ...invocation.env,
  };
}

/**
 * Serves a rollout's MCP server on its socket in the sandbox's folder: connectable by the sandbox user, at most
 * MCP_SOCKET_MAX_CONNECTIONS at once (code in the sandbox could otherwise open connections until the host runs out
 * of descriptors), and a connection that cannot be accepted is dropped instead of ending the process.
 */
export async function listenOnAgentSocket(server: FastifyInstance, path: string): Promise<void> {
  await server.listen({ path });
  server.server.maxConnections = MCP_SOCKET_MAX_CONNECTIONS;
  server.server.on('error', () => undefined);
  await chmod(path, 0o666);
}

/** Writes a file anywhere the sandbox user may (the file API is confined to the workspace; config goes to /tmp). */
export async function writeSandboxFile(session: SandboxSession, path: string, content: string): Promise<void> {
  const result = await session.exec({ command: ['bash', '-c', 'mkdir -p "$(dirname "$1")" && cat > "$1"', 'write', path], stdin: content });
  if (result.exitCode !== 0) throw new Error(`could not write ${path} in the sandbox: ${result.stderr}`);
}

/** The run's lease lent to the MCP server: its sessions may "release" it, but only the run really does. */
function borrowed(lease: Lease): Lease {
  return {
    id: lease.id,
    session: lease.session,
    specHash: lease.specHash,
    expiresAtMs: lease.expiresAtMs,
    acquireMs: lease.acquireMs,
    release: async () => undefined,
    health: (healthOptions) => lease.health(healthOptions),
    snapshot: (snapshotOptions) => lease.snapshot(snapshotOptions),
    fork: (forkOptions) => lease.fork(forkOptions),
    get closed() {
      return lease.closed;
    },
    [Symbol.asyncDispose]: async () => undefined,
  };
}
