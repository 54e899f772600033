import { z } from 'zod';
import { defineTool } from '../tool-definition.js';

const MAX_GLOB_RESULTS = 1000;

export const globTool = defineTool({
  name: 'glob',
  title: 'Find files by pattern',
  description: [
    'Find files in the workspace whose path matches a glob pattern such as "**/*.py" or "src/*.{ts,js}" (* stays within one directory, ** crosses directories).',
    `Returns paths relative to the searched directory, sorted; at most ${MAX_GLOB_RESULTS} (the result says truncated beyond that). Symlinks are not followed.`,
  ].join(' '),
  inputSchema: z.object({
    pattern: z.string().min(1).describe('Glob pattern, e.g. "**/*.py".'),
    path: z.string().default('.').describe('Directory to search, relative to the workspace root (default ".").'),
  }),
  outputSchema: z.object({ pattern: z.string(), matches: z.array(z.string()), truncated: z.boolean() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  capability: 'files',
  async execute(input, context) {
    // One extra result tells "exactly the limit" apart from "more than the limit".
    const found = await context.sandbox.files.glob({
      pattern: input.pattern,
      path: input.path,
      maxResults: MAX_GLOB_RESULTS + 1,
      abortSignal: context.abortSignal,
    });
    const truncated = found.length > MAX_GLOB_RESULTS;
    const matches = found.slice(0, MAX_GLOB_RESULTS);
    const text = matches.length > 0 ? matches.join('\n') + (truncated ? `\n[truncated at ${MAX_GLOB_RESULTS} matches]` : '') : `no files match ${input.pattern}`;
    return { structuredContent: { pattern: input.pattern, matches, truncated }, text };
  },
});
