import type { ToolDefinition } from '../tool-definition.js';
import { pythonResetTool } from './python-reset-tool.js';
import { pythonTool } from './python-tool.js';

/** The python toolset: a persistent REPL and its reset. */
export const pythonTools: readonly ToolDefinition[] = [pythonTool, pythonResetTool];
