import type { ToolDefinition } from '../tool-definition.js';
import { editFileTool } from './edit-file-tool.js';
import { globTool } from './glob-tool.js';
import { grepTool } from './grep-tool.js';
import { listDirTool } from './list-dir-tool.js';
import { readFileTool } from './read-file-tool.js';
import { writeFileTool } from './write-file-tool.js';

/** The files toolset, confined to the sandbox workspace (the sandbox enforces it; SBX_ERR_PERMISSION otherwise). */
export const filesTools: readonly ToolDefinition[] = [readFileTool, writeFileTool, editFileTool, listDirTool, globTool, grepTool];
