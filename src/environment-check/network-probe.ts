/**
 * isolation.network-probe: where the environment offers a shell or Python tool, one rollout of a probe agent lists
 * the sandbox's network interfaces through that tool. A sandbox without network has only the
 * loopback; any other interface in an environment that does not declare egress is an error. This needs no route to
 * the internet, so it gives the same answer on an offline machine. Without such a tool it is not checkable (info),
 * and when the tools the other runs saw have none, no probe rollout runs at all.
 */
import { defineAgent } from '../runner/contract/define-agent.js';
import type { Environment, Example } from '../runner/contract/environment.js';
import type { ToolInfo } from '../runner/contract/tool-access.js';
import { type OpenRollouts, runAgent } from './agent-runs.js';
import { type CheckResult, failed, passed } from './check-report.js';

const PROBE_TOOLS = ['bash', 'python'] as const;
const NOT_CHECKABLE = 'no shell or Python tool to probe the sandbox with; not checkable';

const LIST_INTERFACES = {
  bash: { command: 'awk -F: \'NR > 2 { gsub(/ /, "", $1); print $1 }\' /proc/net/dev' },
  python: { code: "print(' '.join(line.split(':')[0].strip() for line in open('/proc/net/dev').read().splitlines()[2:]))" },
} as const;

export async function probeNetwork(options: {
  environment: Environment;
  example: Example | undefined;
  /** The tools the battery's other runs saw (null when no agent got to run). */
  tools: readonly ToolInfo[] | null;
  openRollouts: OpenRollouts;
  abortSignal: AbortSignal;
}): Promise<CheckResult> {
  const declared = options.environment.sandbox['network'] === 'egress';
  if (declared) return passed('isolation.network-probe', 'the environment declares network egress; not probed', { probed: false });
  if (!options.example) return passed('isolation.network-probe', 'no example to probe with', { probed: false });
  if (options.tools && !options.tools.some((tool) => (PROBE_TOOLS as readonly string[]).includes(tool.name)))
    return passed('isolation.network-probe', NOT_CHECKABLE, { probed: false });
  let listing: { tool: string; text: string; isError: boolean } | null = null;
  const probeAgent = defineAgent({
    name: 'network-probe',
    async run({ tools, callTool, answer }) {
      const tool = PROBE_TOOLS.find((name) => tools.some((info) => info.name === name));
      if (tool) {
        const outcome = await callTool(tool, { ...LIST_INTERFACES[tool] });
        listing = { tool, text: outcome.text, isError: outcome.isError };
      }
      answer('');
    },
  })();
  // In an environment that talks back the probe ends its rollout after its one answer, without asking for a reply.
  const probe = { ...probeAgent, takesEnvironmentReplies: true };
  const run = await runAgent({
    environment: options.environment,
    agent: probe,
    examples: [options.example],
    openRollouts: options.openRollouts,
    concurrency: 1,
    abortSignal: options.abortSignal,
  });
  // TypeScript does not see the agent's assignment inside the closure and narrows listing to null; restate its type.
  const found = listing as { tool: string; text: string; isError: boolean } | null;
  const error = run.records[0]?.error ?? null;
  if (error)
    return failed('isolation.network-probe', 'warning', `the probe's rollout errored: ${error.message.slice(0, 200)}`, {
      probed: false,
      example: options.example.id,
    });
  if (!found) return passed('isolation.network-probe', NOT_CHECKABLE, { probed: false });
  if (found.isError)
    return failed('isolation.network-probe', 'warning', `the probe could not list network interfaces with ${found.tool}`, {
      probed: false,
      output: found.text.slice(0, 300),
    });
  const interfaces = found.text.split(/\s+/).filter((name) => name.length > 0);
  const evidence = { probed: true, tool: found.tool, example: options.example.id, interfaces };
  if (interfaces.some((name) => name !== 'lo'))
    return failed(
      'isolation.network-probe',
      'error',
      `the sandbox has network interfaces (${interfaces.join(', ')}) though the environment declares no egress`,
      evidence,
    );
  return passed('isolation.network-probe', `the sandbox has only the loopback interface (probed with ${found.tool})`, evidence);
}
