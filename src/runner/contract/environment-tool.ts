/**
 * An environment's own tool is a tool of the one contract (src/tools/tool-definition.ts): the same `defineTool` the
 * built-in tools (python, bash, files, js, wiki) are written with, served the same way. The names below are the ones
 * environment authors imported before the two contracts became one; they stay until the public API re-exports the
 * tool contract's own names (ToolDefinition, ToolContext, ToolReply, ToolAnnotations).
 */
import type { z } from 'zod';
import type { ToolAnnotations, ToolContext, ToolDefinition, ToolReply } from '../../tools/tool-definition.js';

export { defineTool } from '../../tools/tool-definition.js';

/** Alias of ToolDefinition. */
export type EnvironmentTool<Input extends z.ZodObject = z.ZodObject, State = unknown, Args = unknown> = ToolDefinition<Input, State, Args>;
/** Alias of ToolContext. */
export type EnvironmentToolContext<State = Record<string, unknown>, Args = Record<string, unknown>> = ToolContext<State, Args>;
/** Alias of ToolDefinition's annotations: unset hints default to the cautious value. */
export type EnvironmentToolHints = Partial<ToolAnnotations>;
/** Alias of ToolReply. */
export type EnvironmentToolReply = ToolReply;
