import type { ToolDefinition } from '../tool-definition.js';
import { javascriptTool } from './javascript-tool.js';

/** The js toolset: a persistent isolate context. */
export const jsTools: readonly ToolDefinition[] = [javascriptTool];
