import { z } from 'zod';
import { defineTool } from '../tool-definition.js';

const MAX_GREP_RESULTS = 500;

export const grepTool = defineTool({
  name: 'grep',
  title: 'Search file contents',
  description: [
    'Search the text files of the workspace for lines matching a regular expression (Python re syntax).',
    'Optionally restrict to files matching a glob (e.g. "**/*.py") and ignore case. Binary files are skipped.',
    `Returns path, line number and line text for each match; at most ${MAX_GREP_RESULTS} (the result says truncated beyond that).`,
  ].join(' '),
  inputSchema: z.object({
    pattern: z.string().min(1).describe('Regular expression, e.g. "def \\w+\\(".'),
    path: z.string().default('.').describe('Directory or file to search, relative to the workspace root (default ".").'),
    glob: z.string().optional().describe('Only search files whose path matches this glob.'),
    ignore_case: z.boolean().default(false),
  }),
  outputSchema: z.object({
    pattern: z.string(),
    matches: z.array(z.object({ path: z.string(), line: z.number().int(), text: z.string() })),
    truncated: z.boolean(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  capability: 'files',
  async execute(input, context) {
    const found = await context.sandbox.files.grep({
      pattern: input.pattern,
      path: input.path,
      ignoreCase: input.ignore_case,
      maxResults: MAX_GREP_RESULTS + 1,
      abortSignal: context.abortSignal,
      ...(input.glob === undefined ? {} : { glob: input.glob }),
    });
    const truncated = found.length > MAX_GREP_RESULTS;
    const matches = found.slice(0, MAX_GREP_RESULTS).map((match) => ({ path: match.path, line: match.line, text: match.text }));
    const lines = matches.map((match) => `${match.path}:${match.line}: ${match.text}`);
    const text = lines.length > 0 ? lines.join('\n') + (truncated ? `\n[truncated at ${MAX_GREP_RESULTS} matches]` : '') : `no lines match ${input.pattern}`;
    return { structuredContent: { pattern: input.pattern, matches, truncated }, text };
  },
});
