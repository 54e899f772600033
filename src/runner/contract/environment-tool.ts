/**
 * An environment's own tool is a tool of the one contract (src/tools/tool-definition.ts): the same `defineTool` the
 * built-in tools (python, bash, files, js, wiki) are written with, served the same way. Re-exported here because
 * the public seam (src/index.ts) reaches the tool contract through runner/contract.
 */
export { defineTool } from '../../tools/tool-definition.js';
export type { ToolAnnotations, ToolContext, ToolDefinition, ToolReply } from '../../tools/tool-definition.js';
