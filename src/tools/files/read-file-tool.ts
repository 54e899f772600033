import { z } from 'zod';
import { defineTool } from '../tool-definition.js';
import { errorResult } from '../tool-result.js';
import { workspacePathSchema } from './workspace-path.js';

/** Bytes returned to the model at most; larger files come back truncated (use head/tail or grep). */
export const MAX_READ_BYTES = 256 * 1024;

export const readFileTool = defineTool({
  name: 'read_file',
  title: 'Read file',
  description: [
    'Read a UTF-8 text file from the workspace. Paths are relative to the workspace root (absolute paths must lie inside it).',
    'Pass head or tail to get only the first or last N lines of a long file.',
    `At most ${MAX_READ_BYTES} bytes are returned; the result says truncated when the file is longer. A missing file is an error result.`,
  ].join(' '),
  inputSchema: z.object({
    path: workspacePathSchema,
    head: z.number().int().positive().optional().describe('Return only the first N lines.'),
    tail: z.number().int().positive().optional().describe('Return only the last N lines.'),
  }),
  outputSchema: z.object({ path: z.string(), content: z.string(), size_bytes: z.number().int(), truncated: z.boolean() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  capability: 'files',
  async execute(input, context) {
    if (input.head !== undefined && input.tail !== undefined) return errorResult('INVALID_ARGUMENTS', 'pass head or tail, not both');
    const file = await context.sandbox.files.read({ path: input.path, encoding: 'utf8', maxBytes: MAX_READ_BYTES, abortSignal: context.abortSignal });
    if (file === null) return errorResult('SBX_ERR_NOT_FOUND', `no such file: ${input.path}`);
    const content = selectLines(file.content, input.head, input.tail);
    const output = { path: input.path, content, size_bytes: file.sizeBytes, truncated: file.truncated };
    const note = file.truncated ? `\n[truncated: showing ${MAX_READ_BYTES} of ${file.sizeBytes} bytes]` : '';
    return { structuredContent: output, text: `${content}${note}` };
  },
});

function selectLines(content: string, head: number | undefined, tail: number | undefined): string {
  if (head === undefined && tail === undefined) return content;
  const lines = content.split('\n');
  // A trailing newline would otherwise count as an empty last line.
  if (lines.at(-1) === '') lines.pop();
  const selected = head !== undefined ? lines.slice(0, head) : lines.slice(-(tail ?? 0));
  return selected.join('\n');
}
