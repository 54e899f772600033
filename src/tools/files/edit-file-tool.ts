import { z } from 'zod';
import { defineTool } from '../tool-definition.js';
import { errorResult } from '../tool-result.js';
import { workspacePathSchema } from './workspace-path.js';

/** Files larger than this are not edited in memory; the model should use bash (sed) or python instead. */
const MAX_EDIT_BYTES = 4 * 1024 * 1024;

export const editFileTool = defineTool({
  name: 'edit_file',
  title: 'Edit file',
  description: [
    'Make exact text replacements in an existing UTF-8 file in the workspace.',
    'Each edit replaces oldText with newText; oldText must match the file exactly (including whitespace and indentation) and occur exactly once, so include enough surrounding lines to make it unique.',
    'Edits apply in order, all or nothing: if any edit fails to match, the file is left unchanged and the result is an error.',
  ].join(' '),
  inputSchema: z.object({
    path: workspacePathSchema,
    edits: z
      .array(z.object({ oldText: z.string().min(1).describe('Exact text to find.'), newText: z.string().describe('Replacement text.') }))
      .min(1)
      .describe('Replacements to apply, in order.'),
  }),
  outputSchema: z.object({ path: z.string(), edits_applied: z.number().int(), size_bytes: z.number().int() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  capability: 'files',
  async execute(input, context) {
    const files = context.sandbox.files;
    const file = await files.read({ path: input.path, encoding: 'utf8', maxBytes: MAX_EDIT_BYTES, abortSignal: context.abortSignal });
    if (file === null) return errorResult('SBX_ERR_NOT_FOUND', `no such file: ${input.path}`);
    if (file.truncated) return errorResult('SBX_ERR_OUTPUT_LIMIT', `${input.path} is ${file.sizeBytes} bytes, over the ${MAX_EDIT_BYTES}-byte edit limit; use bash or python instead`);
    // Applied in memory and written once, so a failing edit leaves the file untouched.
    let content = file.content;
    for (const [index, edit] of input.edits.entries()) {
      const count = content.split(edit.oldText).length - 1;
      if (count !== 1) {
        const problem = count === 0 ? 'was not found' : `occurs ${count} times; add surrounding lines to make it unique`;
        return errorResult('SBX_ERR_INVALID_ARGUMENT', `edit ${index + 1}: oldText ${problem} in ${input.path}; the file was not changed`);
      }
      const at = content.indexOf(edit.oldText);
      content = content.slice(0, at) + edit.newText + content.slice(at + edit.oldText.length);
    }
    const { sizeBytes } = await files.write({ path: input.path, content, encoding: 'utf8', abortSignal: context.abortSignal });
    const output = { path: input.path, edits_applied: input.edits.length, size_bytes: sizeBytes };
    return { structuredContent: output, text: `Applied ${input.edits.length} edit(s) to ${input.path}` };
  },
});
