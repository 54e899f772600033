import type { ToolDefinition } from '../tool-definition.js';
import { bashTool } from './bash-tool.js';

/** The shell toolset: one bash command per call. */
export const shellTools: readonly ToolDefinition[] = [bashTool];
