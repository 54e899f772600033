/**
 * `--tools recorded`: the replayed agent's tool calls answered from the source record. The n-th call after the
 * prefix is compared with the n-th recorded call from turn K on: the same name and arguments get the recorded
 * result; any other call (or one past the recorded calls) gets an isError result naming REPLAY_ERR_TOOL_MISMATCH and
 * what was recorded, which the model reads and the record shows. Nothing runs: no sandbox is opened.
 */
import type { ToolAccess, ToolInfo, ToolOutcome } from '../contract/tool-access.js';
import { type RecordedCall, sameArguments } from './trajectory-prefix.js';

export interface RecordedToolAccess extends ToolAccess {
  /** Calls that did not match the recording so far. */
  readonly mismatches: number;
}

export function recordedToolAccess(recorded: readonly RecordedCall[], tools: readonly ToolInfo[]): RecordedToolAccess {
  let next = 0;
  let mismatches = 0;
  return {
    tools,
    get mismatches() {
      return mismatches;
    },
    async call(name, args): Promise<ToolOutcome> {
      const expected = recorded[next++];
      if (expected && expected.result !== null && expected.call.function.name === name && sameArguments(expected.call.function.arguments, JSON.stringify(args)))
        return { text: expected.result, isError: expected.isError };
      mismatches++;
      const was = expected ? `${expected.call.function.name} ${expected.call.function.arguments}` : 'no further call';
      return {
        text: `REPLAY_ERR_TOOL_MISMATCH: this replay answers tool calls from a recording; ${name} ${JSON.stringify(args)} differs from the call recorded at this point (${was})`,
        isError: true,
      };
    },
  };
}
