import type { ToolDefinition } from '../tool-definition.js';
import { readSectionTool } from './read-section-tool.js';
import { searchPagesTool } from './search-pages-tool.js';
import { viewSectionsTool } from './view-sections-tool.js';
import type { WikiLookup } from './wiki-lookup.js';

/** The wiki toolset over one shared index (built once per corpus, read by every session). */
export function wikiTools(index: WikiLookup): readonly ToolDefinition[] {
  return [searchPagesTool(index), viewSectionsTool(index), readSectionTool(index)];
}
