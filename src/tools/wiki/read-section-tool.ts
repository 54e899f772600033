import { z } from 'zod';
import { type ToolDefinition, defineTool } from '../tool-definition.js';
import { errorResult } from '../tool-result.js';
import type { WikiLookup } from './wiki-lookup.js';

export function readSectionTool(index: WikiLookup): ToolDefinition {
  return defineTool({
    name: 'read_section',
    title: 'Read a page section',
    description:
      'Return the text of one section of a Wikipedia page. The section_id comes from view_sections and has the form "<page_id>:<section>"; "<page_id>:full" returns the whole page.',
    inputSchema: z.object({ section_id: z.string().min(1).describe('A section_id returned by view_sections.') }),
    outputSchema: z.object({ section_id: z.string(), content: z.string() }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async execute(input) {
      const content = await index.readSection(input.section_id);
      if (content === null) return errorResult('WIKI_SECTION_NOT_FOUND', `no section with section_id "${input.section_id}"; use view_sections to list a page's sections`);
      return { structuredContent: { section_id: input.section_id, content }, text: content };
    },
  });
}
