import { z } from 'zod';
import { defineTool } from '../tool-definition.js';
import { errorResult } from '../tool-result.js';

export const listDirTool = defineTool({
  name: 'list_dir',
  title: 'List directory',
  description:
    'List the entries of a directory in the workspace (default: the workspace root), each marked [DIR] or [FILE] with its size. Not recursive: use glob to find files in subdirectories.',
  inputSchema: z.object({ path: z.string().default('.').describe('Directory relative to the workspace root (default ".").') }),
  outputSchema: z.object({
    path: z.string(),
    entries: z.array(z.object({ name: z.string(), type: z.enum(['file', 'directory', 'symlink', 'other']), size_bytes: z.number().int() })),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  capability: 'files',
  async execute(input, context) {
    const listed = await context.sandbox.files.list({ path: input.path, abortSignal: context.abortSignal });
    if (listed === null) return errorResult('SBX_ERR_NOT_FOUND', `no such directory: ${input.path}`);
    const entries = listed.map((entry) => ({ name: entry.name, type: entry.type, size_bytes: entry.sizeBytes }));
    const lines = entries.map((entry) => (entry.type === 'directory' ? `[DIR]  ${entry.name}/` : `[FILE] ${entry.name} (${entry.size_bytes} bytes)`));
    return { structuredContent: { path: input.path, entries }, text: lines.length > 0 ? lines.join('\n') : `(${input.path} is empty)` };
  },
});
