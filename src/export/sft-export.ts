/**
 * `corral export sft`: a run's rollouts as chat conversations for supervised fine-tuning, one {messages, tools}
 * object a line (the shape TRL's SFTTrainer, axolotl and most SFT loaders read): system, user, assistant turns with
 * their tool calls, tool results, and the tool schemas the model was offered (metadata.json `tools`). Errored
 * rollouts are never included; --min-reward and --best-per-example choose among the scored ones.
 */
import { existsSync, readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CorralError } from '../core/errors.js';
import type { ChatMessage } from '../runner/trajectory/messages.js';
import type { ResultRecord } from '../runner/trajectory/result-record.js';
import { ResultsWriter } from '../runner/trajectory/results-writer.js';

export interface SftExportOptions {
  outPath?: string;
  /** Only rollouts whose reward is at least this. */
  minReward?: number;
  /** Only the best rollout of each example (highest reward; the lowest rollout index on a tie). */
  bestPerExample?: boolean;
  /** Drops reasoning: <think>...</think> in assistant content and the reasoning_content field. */
  stripThinking?: boolean;
}

export interface SftExportResult {
  outPath: string;
  written: number;
  rollouts: number;
  errored: number;
  belowMinReward: number;
  notBest: number;
  /** False when metadata.json holds no tool schemas (runs written before they were kept); lines then carry tools: []. */
  hadTools: boolean;
}

export async function exportRunSft(runDirectory: string, options: SftExportOptions = {}): Promise<SftExportResult> {
  const directory = resolve(runDirectory);
  if (!existsSync(join(directory, 'results.jsonl')))
    throw new CorralError('EXPORT_ERR_RUN_NOT_FOUND', `${directory} is not a run directory: it has no results.jsonl (give the folder \`corral eval\` wrote)`);
  const tools = readTools(directory);
  const records = ResultsWriter.readRecords(directory);
  const scored = records.filter((record) => record.error === null && record.reward !== null);
  const rewarded = scored.filter((record) => options.minReward === undefined || record.reward! >= options.minReward);
  const chosen = options.bestPerExample ? bestPerExample(rewarded) : rewarded;
  const outPath = resolve(options.outPath ?? join(directory, 'sft.jsonl'));
  const temporary = `${outPath}.${process.pid}.tmp`;
  const file = await open(temporary, 'w');
  try {
    for (const record of chosen)
      await file.write(`${JSON.stringify({ messages: conversation(record, options.stripThinking === true), tools: tools ?? [] })}\n`);
  } finally {
    await file.close();
  }
  await rename(temporary, outPath);
  return {
    outPath,
    written: chosen.length,
    rollouts: records.length,
    errored: records.length - scored.length,
    belowMinReward: scored.length - rewarded.length,
    notBest: rewarded.length - chosen.length,
    hadTools: tools !== undefined,
  };
}

function conversation(record: ResultRecord, stripThinking: boolean): ChatMessage[] {
  return [...record.prompt, ...record.completion].map((message) => {
    if (message.role !== 'assistant' || !stripThinking) return message;
    const { reasoning_content: _reasoning, ...rest } = message;
    return { ...rest, content: rest.content === null ? null : rest.content.replace(/<think>[\s\S]*?<\/think>\s*/g, '') };
  });
}

function bestPerExample(records: readonly ResultRecord[]): ResultRecord[] {
  const best = new Map<string, ResultRecord>();
  for (const record of records) {
    const current = best.get(record.example_id);
    if (!current || record.reward! > current.reward! || (record.reward === current.reward && record.rollout_index < current.rollout_index))
      best.set(record.example_id, record);
  }
  return records.filter((record) => best.get(record.example_id) === record);
}

function readTools(directory: string): unknown[] | undefined {
  const path = join(directory, 'metadata.json');
  if (!existsSync(path)) return undefined;
  const tools = (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>)['tools'];
  return Array.isArray(tools) ? tools : undefined;
}
