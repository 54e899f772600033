import { z } from 'zod';
import { type ToolDefinition, defineTool } from '../tool-definition.js';
import { errorResult } from '../tool-result.js';
import type { WikiLookup } from './wiki-lookup.js';

export function viewSectionsTool(index: WikiLookup): ToolDefinition {
  return defineTool({
    name: 'view_sections',
    title: 'View page sections',
    description:
      'List the sections of a Wikipedia page (from search_pages) as section_id and section_name, in page order. Pass a section_id to read_section to read that part of the page.',
    inputSchema: z.object({ page_id: z.string().min(1).describe('A page_id returned by search_pages.') }),
    outputSchema: z.object({
      page_id: z.string(),
      sections: z.array(z.object({ section_id: z.string(), section_name: z.string() })),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async execute(input) {
      const listed = await index.viewSections(input.page_id);
      if (listed === null) return errorResult('WIKI_PAGE_NOT_FOUND', `no page with page_id "${input.page_id}"; use search_pages to find page ids`);
      const sections = listed.map((section) => ({ section_id: section.section_id, section_name: section.section_name }));
      const text = sections.map((section) => `${section.section_id}  ${section.section_name}`).join('\n');
      return { structuredContent: { page_id: input.page_id, sections }, text: text || '(the page has no sections)' };
    },
  });
}
