import { z } from 'zod';
import { defineTool } from '../tool-definition.js';
import { workspacePathSchema } from './workspace-path.js';

export const writeFileTool = defineTool({
  name: 'write_file',
  title: 'Write file',
  description:
    'Create a text file in the workspace, or overwrite it completely, with the given UTF-8 content. Missing parent directories are created. To change part of an existing file prefer edit_file.',
  inputSchema: z.object({
    path: workspacePathSchema,
    content: z.string().describe('The complete new content of the file.'),
  }),
  outputSchema: z.object({ path: z.string(), size_bytes: z.number().int() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  capability: 'files',
  async execute(input, context) {
    const files = context.sandbox.files;
    const { sizeBytes } = await files.write({ path: input.path, content: input.content, encoding: 'utf8', createParents: true, abortSignal: context.abortSignal });
    return { structuredContent: { path: input.path, size_bytes: sizeBytes }, text: `Wrote ${sizeBytes} bytes to ${input.path}` };
  },
});
