/**
 * The one mapping from toolset names to tools. Everything that serves tools asks for them by toolset name: the
 * catalog behind /mcp/<env> and `corral mcp`, and the in-process sessions of `corral eval` (whose environments
 * name their toolsets in runner/env/environment.ts, with these same names).
 */
import { CorralError } from '../core/errors.js';
import { filesTools } from '../tools/files/files-toolset.js';
import { jsTools } from '../tools/js/js-toolset.js';
import { pythonTools } from '../tools/python/python-toolset.js';
import { shellTools } from '../tools/shell/shell-toolset.js';
import type { ToolDefinition } from '../tools/tool-definition.js';
import type { WikiLookup } from '../tools/wiki/wiki-lookup.js';
import { wikiTools } from '../tools/wiki/wiki-toolset.js';

export const TOOLSET_NAMES = ['python', 'shell', 'files', 'js', 'wiki'] as const;
export type ToolsetName = (typeof TOOLSET_NAMES)[number];

/** The tools of these toolsets, in order. The wiki toolset needs a loaded index; asking for it without one is a config error. */
export function toolsForToolsets(toolsets: readonly ToolsetName[], options: { wiki?: WikiLookup | undefined } = {}): ToolDefinition[] {
  return toolsets.flatMap((toolset): readonly ToolDefinition[] => {
    switch (toolset) {
      case 'python':
        return pythonTools;
      case 'shell':
        return shellTools;
      case 'files':
        return filesTools;
      case 'js':
        return jsTools;
      case 'wiki':
        if (!options.wiki) throw new CorralError('CFG_ERR_INVALID', 'the wiki toolset needs a wiki corpus: pass --corpus PATH or set CORRAL_DATA_DIR');
        return wikiTools(options.wiki);
    }
  });
}
