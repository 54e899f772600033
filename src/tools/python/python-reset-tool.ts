import { z } from 'zod';
import { defineTool } from '../tool-definition.js';

export const pythonResetTool = defineTool({
  name: 'python_reset',
  title: 'Reset Python REPL',
  description:
    'Restart the persistent Python REPL, discarding every variable, import and definition. Files in the workspace are kept. Use it when the REPL state is confused or memory is exhausted.',
  inputSchema: z.object({}),
  outputSchema: z.object({ reset: z.literal(true) }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  capability: 'python',
  async execute(_input, context) {
    await context.sandbox.resetPython({ abortSignal: context.abortSignal });
    return { structuredContent: { reset: true as const }, text: 'The Python REPL was restarted; all earlier variables are gone.' };
  },
});
