/**
 * The tool session of a `--tools recorded` replay: the tool list the source run's model was offered (metadata.json
 * `tools`; for a run written before corral kept them, the names its records called, without schemas) and no sandbox.
 * The replay agent answers calls from the recording; anything else that calls a tool here (a rubric) is refused
 * with RESCORE_ERR_NEEDS_SANDBOX, so the record is errored, never scored 0.
 */
import { CorralError } from '../../core/errors.js';
import type { ToolInfo } from '../contract/tool-access.js';
import type { ToolSessionFactory } from '../contract/tool-session.js';
import type { SourceRun } from './source-run.js';

export function recordedToolInfos(source: SourceRun): ToolInfo[] {
  const offered = source.metadata['tools'];
  if (Array.isArray(offered) && offered.length > 0) {
    return offered.map((entry: { function?: { name?: unknown; description?: unknown; parameters?: unknown } }) => ({
      name: String(entry.function?.name ?? ''),
      description: typeof entry.function?.description === 'string' ? entry.function.description : '',
      inputSchema: (entry.function?.parameters as Record<string, unknown> | undefined) ?? { type: 'object' },
    }));
  }
  const names = new Set<string>();
  for (const record of source.records)
    for (const message of record.completion) if (message.role === 'assistant') for (const call of message.tool_calls ?? []) names.add(call.function.name);
  return [...names].map((name) => ({ name, description: '', inputSchema: { type: 'object' } }));
}

export function recordedToolSessions(source: SourceRun): ToolSessionFactory {
  const tools = recordedToolInfos(source);
  return {
    open: async () => ({
      tools,
      call: async (name) => {
        throw new CorralError(
          'RESCORE_ERR_NEEDS_SANDBOX',
          `a replay with --tools recorded has no sandbox: ${name} can only be answered from the recording (use --tools live)`,
        );
      },
      close: async () => undefined,
    }),
  };
}
