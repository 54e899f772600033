/**
 * What a CLI agent's rollout puts on its record, from the recording proxy's calls: the conversation as the proxy
 * saw it (the messages and answer of the call that ends the CLI's chain of turns, the CLI's system prompt left out), the token ids of each model
 * turn exactly as upstream returned them, and the rollout's ATIF trajectory.json (validated). Terminal trials and
 * ordinary-environment CLI runs both call these.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChatContent, ProxyChatMessage } from '../../model-proxy/chat-wire.js';
import { conversationEnd } from '../../model-proxy/conversation-end.js';
import type { ModelCall } from '../../model-proxy/model-call.js';
import type { ChatMessage, TurnTokens } from '../../runner/trajectory/messages.js';
import type { ResultRecord } from '../../runner/trajectory/result-record.js';
import { toAtif } from '../../export/atif-from-record.js';
import { assertValidAtif } from '../../export/atif-validate.js';

export interface CliConversation {
  completion: ChatMessage[];
  /** One entry per assistant message of the completion (turn = its 1-based position); without ids when its call had none. */
  tokens: TurnTokens[];
  /** The CLI's final answer: the text of the call that ends its conversation. */
  answer: string;
}

/** From the call that ends the CLI's own chain of turns (conversation-end.ts), not whatever called the proxy last. */
export function cliConversation(calls: readonly ModelCall[]): CliConversation {
  const last = conversationEnd(calls);
  const messages = last ? [...last.request.messages, ...(last.response ? [last.response] : [])] : [];
  const kept = messages.filter((message) => message.role !== 'system');
  const tokens: TurnTokens[] = [];
  let turn = 0;
  let cursor = 0;
  for (const message of kept) {
    if (message.role !== 'assistant') continue;
    turn++;
    // The call that produced this message: the proxy shares unchanged prefixes by object, else equal by value.
    const found = findCall(calls, cursor, message);
    // An entry even without token data, so samples see the turn that lacked them (training-sample builder).
    if (found < 0) {
      tokens.push({ turn });
      continue;
    }
    cursor = found + 1;
    tokens.push({ ...calls[found]!.tokens, turn });
  }
  const answer = last?.response && typeof last.response.content === 'string' ? last.response.content : '';
  return { completion: kept.map(asChatMessage), tokens, answer };
}

function findCall(calls: readonly ModelCall[], from: number, message: ProxyChatMessage): number {
  for (let index = from; index < calls.length; index++) if (calls[index]!.response === message) return index;
  const text = JSON.stringify(message);
  for (let index = from; index < calls.length; index++) if (JSON.stringify(calls[index]!.response) === text) return index;
  // A CLI may resend an answer reshaped (content as parts, reasoning dropped, arguments re-serialised): match what the
  // model said, its text and its tool calls, so the turn keeps its token ids (a turn without them leaves no sample).
  const said = assistantSaid(message);
  for (let index = from; index < calls.length; index++) {
    const response = calls[index]!.response;
    if (response && assistantSaid(response) === said) return index;
  }
  return -1;
}

function assistantSaid(message: ProxyChatMessage): string {
  const content = asChatMessage(message).content ?? '';
  const calls = message.role === 'assistant' ? (message.tool_calls ?? []) : [];
  return JSON.stringify([content.trim(), calls.map((call) => [call.id, call.function.name, normalisedArguments(call.function.arguments)])]);
}

function normalisedArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text || '{}'));
  } catch {
    return text;
  }
}

/** Content parts (text, images) flattened to the trajectory's plain-text messages; images become a marker. */
function asChatMessage(message: ProxyChatMessage): ChatMessage {
  const text = (content: ChatContent) =>
    typeof content === 'string' || content === null ? content : content.map((part) => (part.type === 'text' ? part.text : '[image]')).join('');
  if (message.role === 'assistant') return { ...message, content: text(message.content) } as ChatMessage;
  return { ...message, content: text(message.content) ?? '' } as ChatMessage;
}

/** The rollout's ATIF v1.7 trajectory.json text (Harbor keeps it in the trial's agent/ folder); throws when invalid. */
export function cliTrajectoryJson(record: ResultRecord, agent: { name: string; version: string; model: string }, modelCalls: number): string {
  const trajectory = toAtif(record, {
    agent: { name: agent.name, version: agent.version, modelName: agent.model, extra: { model_calls: modelCalls } },
    usesModel: true,
  });
  return `${JSON.stringify(assertValidAtif(trajectory, `${record.example_id}#${record.rollout_index}`), null, 2)}\n`;
}

/** Writes trajectory.json into a rollout's agent folder, replacing (never writing through) whatever is at that name. */
export async function writeCliTrajectory(agentDirectory: string, json: string): Promise<string> {
  const path = join(agentDirectory, 'trajectory.json');
  await rm(path, { force: true, recursive: true });
  await writeFile(path, json, { flag: 'wx' });
  return path;
}
