/**
 * hygiene.*: what a run relies on without saying so: every tool has a description and an object input schema (as
 * the agent sees them), example ids are present, unique and the same on a second load of the dataset, the
 * environment's arguments validate against its schema, and the limits are finite with the tool timeout inside the
 * rollout timeout.
 */
import type { Environment, Example } from '../runner/contract/environment.js';
import type { ToolInfo } from '../runner/contract/tool-access.js';
import { type CheckResult, failed, passed } from './check-report.js';

export function checkToolDescriptions(tools: readonly ToolInfo[]): CheckResult {
  const undescribed = tools.filter((tool) => typeof tool.description !== 'string' || tool.description.trim() === '').map((tool) => tool.name);
  const unschemed = tools.filter((tool) => tool.inputSchema?.['type'] !== 'object').map((tool) => tool.name);
  const evidence = { tools: tools.map((tool) => tool.name), undescribed, unschemed };
  if (undescribed.length > 0 || unschemed.length > 0) {
    return failed(
      'hygiene.tool-descriptions',
      'error',
      `tools without a description: ${undescribed.join(', ') || 'none'}; without an object input schema: ${unschemed.join(', ') || 'none'}`,
      evidence,
    );
  }
  return passed('hygiene.tool-descriptions', `${tools.length} tools, each with a description and an input schema`, evidence);
}

export function checkExampleIds(first: readonly Example[], second: readonly Example[]): CheckResult {
  const ids = first.map((example) => example.id);
  const missing = ids.filter((id) => typeof id !== 'string' || id.length === 0).length;
  const seen = new Set<string>();
  const duplicates = [...new Set(ids.filter((id) => (seen.has(id) ? true : (seen.add(id), false))))];
  const again = second.map((example) => example.id);
  const unstable = ids.filter((id, index) => again[index] !== id).slice(0, 20);
  const evidence = { examples: ids.length, missing, duplicates: duplicates.slice(0, 20), unstable, second_load: again.length };
  if (missing > 0 || duplicates.length > 0 || unstable.length > 0 || again.length !== ids.length) {
    return failed(
      'hygiene.example-ids',
      'error',
      `example ids must be present, unique and stable (--resume keys on them): ${missing} missing, ${duplicates.length} duplicated, ${unstable.length} changed on a second load`,
      evidence,
    );
  }
  return passed('hygiene.example-ids', `${ids.length} example ids, unique and the same on a second load`, evidence);
}

export function checkEnvironmentArgs(environment: Environment): CheckResult {
  if (!environment.argsSchema) return passed('hygiene.env-args', 'the environment takes no arguments (--env-args is refused)', { schema: false });
  const result = environment.argsSchema.safeParse(environment.envArgs);
  if (!result.success)
    return failed('hygiene.env-args', 'error', `the arguments the environment runs with do not validate: ${result.error.message.slice(0, 300)}`, {
      schema: true,
    });
  return passed('hygiene.env-args', 'the environment’s arguments validate against its schema', { schema: true, args: environment.envArgs });
}

export function checkTimeouts(environment: Environment): CheckResult {
  const { toolTimeoutMs, rolloutTimeoutMs } = environment.limits;
  const evidence = { tool_timeout_ms: toolTimeoutMs, rollout_timeout_ms: rolloutTimeoutMs, max_turns: environment.maxTurns };
  const finite = [toolTimeoutMs, rolloutTimeoutMs, environment.maxTurns].every((value) => Number.isFinite(value) && value > 0);
  if (!finite) return failed('hygiene.timeouts', 'error', 'a limit is not a positive finite number', evidence);
  if (toolTimeoutMs > rolloutTimeoutMs)
    return failed('hygiene.timeouts', 'warning', `the tool timeout (${toolTimeoutMs} ms) exceeds the rollout timeout (${rolloutTimeoutMs} ms)`, evidence);
  return passed(
    'hygiene.timeouts',
    `tool calls time out after ${toolTimeoutMs} ms, rollouts after ${rolloutTimeoutMs} ms, ${environment.maxTurns} turns`,
    evidence,
  );
}
