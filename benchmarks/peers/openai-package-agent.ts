/**
 * The peer for runner.wiki.rollouts_per_s: the same agent loop as OpenAIAgent, but each model call is the openai
 * package doing its own work (its fetch, its retries and timeout). The runner's agent talks to the endpoint with
 * undici directly instead (src/runner/agents/openai/model-http-client.ts); this figure is what that choice is
 * measured against, in the same run.
 */
import OpenAI from 'openai';
import type { Agent, AgentRunInput } from '../../src/runner/agents/agent.js';
import { executeToolCalls } from '../../src/runner/agents/execute-tool-calls.js';
import { readChatCompletion } from '../../src/runner/agents/openai/chat-completion-response.js';
import { answerWithoutReasoning } from '../../src/runner/agents/openai/reasoning-text.js';
import { agentPromptMessages } from '../../src/runner/agents/prompt-messages.js';

export class OpenAIPackageAgent implements Agent {
  readonly name = 'openai-package';
  readonly model: string;
  private readonly client: OpenAI;

  constructor(options: { model: string; baseURL: string; apiKey: string }) {
    this.model = options.model;
    this.client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey, maxRetries: 4, timeout: 600_000 });
  }

  async run(input: AgentRunInput): Promise<void> {
    const { recorder, abortSignal } = input;
    const conversation = agentPromptMessages(input.systemPrompt, input.example);
    const tools = input.tools.tools.map((tool) => ({
      type: 'function' as const,
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
    for (let step = 0; step < input.maxTurns; step++) {
      const turn = recorder.startTurn();
      const body = { model: this.model, messages: conversation, tools } as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
      const response: unknown = await this.client.chat.completions.create(body, { signal: abortSignal });
      const modelTurn = readChatCompletion(response, turn);
      recorder.message(modelTurn.message);
      conversation.push(modelTurn.message);
      if (modelTurn.toolCalls.length === 0 || modelTurn.truncated) {
        recorder.answer(answerWithoutReasoning(modelTurn.message.content ?? ''));
        return;
      }
      conversation.push(...(await executeToolCalls({ recorder, tools: input.tools, calls: modelTurn.toolCalls, turn, abortSignal })));
    }
  }
}
