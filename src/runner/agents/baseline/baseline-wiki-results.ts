/**
 * Reads wiki tool results the way the baseline needs them. structuredContent is preferred ({results: [...]},
 * {sections: [...]}); when a server sends only text, ids are picked out of lines such as
 * `page_id: foo` or `"section_id": "foo:bar"`.
 */
import type { ToolOutcome } from '../../contract/tool-access.js';
import { numberField, recordListField, stringField } from '../../environments/tool-outcome-fields.js';

export interface PageResult {
  pageId: string;
  title: string;
  score: number | undefined;
  snippet: string;
}

export interface SectionEntry {
  sectionId: string;
  sectionName: string;
}

export function searchResults(outcome: ToolOutcome): PageResult[] {
  if (outcome.isError) return [];
  const listed = recordListField(outcome.structuredContent, ['results', 'pages', 'hits']);
  if (listed !== undefined) {
    return listed.flatMap((item) => {
      const pageId = stringField(item, ['page_id', 'pageId', 'id']);
      return pageId === undefined
        ? []
        : [
            {
              pageId,
              title: stringField(item, ['title']) ?? pageId,
              score: numberField(item, ['score']),
              snippet: stringField(item, ['snippet', 'text']) ?? '',
            },
          ];
    });
  }
  return idsInText(outcome.text, 'page_id').map((pageId) => ({ pageId, title: pageId, score: undefined, snippet: '' }));
}

export function sectionEntries(outcome: ToolOutcome): SectionEntry[] {
  if (outcome.isError) return [];
  const listed = recordListField(outcome.structuredContent, ['sections']);
  if (listed !== undefined) {
    return listed.flatMap((item) => {
      const sectionId = stringField(item, ['section_id', 'sectionId', 'id']);
      return sectionId === undefined ? [] : [{ sectionId, sectionName: stringField(item, ['section_name', 'sectionName', 'name']) ?? '' }];
    });
  }
  return idsInText(outcome.text, 'section_id').map((sectionId) => ({ sectionId, sectionName: '' }));
}

/** The text of a read_section result: the text itself, or a content field when a server wraps it. */
export function sectionText(outcome: ToolOutcome): string {
  if (outcome.isError) return '';
  return stringField(outcome.structuredContent, ['content', 'text']) ?? outcome.text;
}

function idsInText(text: string, field: string): string[] {
  const pattern = new RegExp(`["']?${field}["']?\\s*[:=]\\s*["']?([^\\s"',)\\]]+)`, 'g');
  return [...new Set([...text.matchAll(pattern)].map((match) => match[1]!))];
}
