import type { CliAgentDefinition, CliMcpServer } from './cli-agent.js';
import { stateEnvironment } from './cli-state.js';
import { stringify as stringifyToml } from 'smol-toml';

/** The variable codex reads the key from (config env_key), so the key never lands in config.toml. */
const API_KEY_VARIABLE = 'CORRAL_MODEL_API_KEY';

/**
 * Codex (a static musl binary; speaks the Responses API only: wire_api "chat" is rejected). config.toml in
 * CODEX_HOME holds the provider, the MCP servers and the offline switches.
 */
export const CODEX: CliAgentDefinition = {
  name: 'codex',
  packageName: '@openai/codex',
  version: '0.171.0',
  dialect: 'responses',
  // bin/codex.js only picks this binary from the platform package and adds codex-path (rg) to PATH.
  binaryPath: 'node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex',
  needsNode: false,
  versionArguments: ['--version'],
  offlineEnv: {},
  invocation(instruction, settings) {
    const state = stateEnvironment(settings);
    const codexHome = `${settings.stateDirectory}/codex`;
    // smol-toml does the quoting: TOML's escapes differ from JSON's (DEL, lone surrogates), and names may hold dots.
    const config = {
      model: settings.endpoint.model,
      model_provider: 'corral',
      web_search: 'disabled',
      features: { plugins: false },
      analytics: { enabled: false },
      model_providers: { corral: { name: 'corral', base_url: settings.endpoint.baseUrl, env_key: API_KEY_VARIABLE, wire_api: 'responses' } },
      mcp_servers: Object.fromEntries(settings.mcpServers.map((server) => [server.name, mcpServerTable(server)])),
    };
    return {
      files: [{ path: `${codexHome}/config.toml`, content: stringifyToml(config) }],
      env: { ...state, CODEX_HOME: codexHome, [API_KEY_VARIABLE]: settings.endpoint.apiKey },
      // Codex's own bwrap sandbox cannot start inside a container; corral's sandbox is the boundary.
      arguments: ['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', instruction],
      stdin: '',
      logDirectories: [`${codexHome}/sessions`, `${codexHome}/log`],
    };
  },
};

function mcpServerTable(server: CliMcpServer): Record<string, unknown> {
  if (server.transport === 'http') return { url: server.url, ...(server.headers ? { http_headers: server.headers } : {}) };
  return { command: server.command, args: server.args, ...(server.env ? { env: server.env } : {}) };
}
