/**
 * Child process for runner.wiki.rollouts_per_s: an OpenAI-compatible endpoint that answers instantly with the
 * tool calls a wiki agent makes, read off the conversation it is sent: search_pages(question), then
 * view_sections(top page), read_section(first section), read_section(second section), then an answer. Its own
 * process, so serialising ~5,000 completions does not share the runner's event loop.
 */
import type { ChatCompletionRequestBody, ModelReply } from '../../src/testing/scripted-model-server.js';
import { startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import type { ChatMessage } from '../../src/runner/trajectory/messages.js';

type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

const callTool = (name: string, args: Record<string, unknown>): ModelReply => ({ kind: 'tool-calls', toolCalls: [{ name, arguments: args }] });

/** search_pages text lines read "1. Title (page_id: X, score: 1.23)". */
function topPageId(searchText: string): string {
  return /\(page_id: (.+?), score: /.exec(searchText)?.[1] ?? 'missing-page';
}

/** view_sections text lines read "<section_id>  <section_name>". */
function sectionIds(viewText: string): string[] {
  return viewText
    .split('\n')
    .map((line) => line.split('  ')[0]!.trim())
    .filter(Boolean);
}

function wikiRolloutReply(request: ChatCompletionRequestBody): ModelReply {
  const toolResults = request.messages.filter((message): message is ToolMessage => message.role === 'tool').map((message) => message.content);
  const question = request.messages.find((message) => message.role === 'user')?.content ?? '';
  switch (toolResults.length) {
    case 0:
      return callTool('search_pages', { query: question });
    case 1:
      return callTool('view_sections', { page_id: topPageId(toolResults[0]!) });
    case 2:
    case 3: {
      const sections = sectionIds(toolResults[1]!);
      return callTool('read_section', { section_id: sections[toolResults.length - 2] ?? sections[0] ?? 'missing:full' });
    }
    default:
      return { kind: 'text', content: toolResults[toolResults.length - 1]!.split(/\s+/).slice(0, 3).join(' ') };
  }
}

const server = await startScriptedModelServer(wikiRolloutReply, { recordRequests: false });
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
process.send?.({ ready: true, baseURL: server.baseURL });
