/**
 * Token-in mode samples from /v1/completions, which returns raw text: no server-side tool-call or reasoning parser
 * runs. This reads the text the way vLLM's hermes tool parser and its <think> reasoning parser do (Qwen 2.5/3,
 * Hermes, DeepSeek-R1 style): a leading <think>...</think> is the reasoning, each <tool_call>{"name", "arguments"}
 * </tool_call> a tool call, the rest the content. A block that is not valid JSON stays in the content (the model's
 * mistake, visible to it on the next turn).
 */
import type { ToolCallRequest } from '../../trajectory/messages.js';
import type { AssistantMessage } from './chat-completion-response.js';

const THINK = /^\s*<think>([\s\S]*?)<\/think>/;
const TOOL_CALL = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;

export function assistantFromCompletionText(text: string, turn: number): { message: AssistantMessage; toolCalls: ToolCallRequest[] } {
  const think = THINK.exec(text);
  let rest = think ? text.slice(think[0].length) : text;
  const toolCalls: ToolCallRequest[] = [];
  rest = rest.replace(TOOL_CALL, (block, json: string) => {
    const call = parseCall(json);
    if (!call) return block;
    toolCalls.push({ id: `call_${turn}_${toolCalls.length}`, type: 'function', function: call });
    return '';
  });
  const content = rest.trim() === '' && toolCalls.length > 0 ? null : rest.trim();
  const message: AssistantMessage = toolCalls.length > 0 ? { role: 'assistant', content, tool_calls: toolCalls } : { role: 'assistant', content };
  if (think && think[1]!.trim() !== '') message.reasoning_content = think[1]!.trim();
  return { message, toolCalls };
}

function parseCall(json: string): { name: string; arguments: string } | undefined {
  try {
    const value = JSON.parse(json) as { name?: unknown; arguments?: unknown };
    if (typeof value?.name !== 'string') return undefined;
    const args = value.arguments === undefined ? {} : value.arguments;
    return { name: value.name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
  } catch {
    return undefined;
  }
}
