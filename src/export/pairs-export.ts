/**
 * `corral export pairs <original-run> <replayed-run>`: preference pairs for DPO-style training from a replay
 * (docs/rescore-replay.md). Each replayed record is paired with the source record it continued (lineage.source_record):
 * both start from the same prompt and prefix (turns 1..K-1), so the pair is {prompt, chosen, rejected} where prompt
 * is the record's prompt plus that prefix and chosen/rejected are the two continuations, the higher reward chosen.
 * Equal rewards, errored records and records copied whole (not continued) make no pair.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CorralError } from '../core/errors.js';
import type { ChatMessage } from '../runner/trajectory/messages.js';
import { type ResultRecord, resultKey } from '../runner/trajectory/result-record.js';
import { ResultsWriter } from '../runner/trajectory/results-writer.js';

export interface PreferencePair {
  example_id: string;
  /** `<example id>#<rollout index>` of the two records, and which run each came from. */
  chosen_record: { run: 'original' | 'replay'; key: string; reward: number };
  rejected_record: { run: 'original' | 'replay'; key: string; reward: number };
  from_turn: number;
  /** The record's prompt (system, user) and the shared prefix: the turns before from_turn. */
  prompt: ChatMessage[];
  chosen: ChatMessage[];
  rejected: ChatMessage[];
}

export interface PairsExportResult {
  outPath: string;
  pairs: number;
  replayed: number;
  ties: number;
  errored: number;
  /** Replay records copied whole (the source errored or ended before from_turn). */
  copied: number;
  /** Replay records whose source record is not in the original run. */
  unmatched: number;
}

export async function exportPairs(
  originalRun: string,
  replayedRun: string,
  options: { outPath?: string; minMargin?: number } = {},
): Promise<PairsExportResult> {
  const original = readRun(originalRun);
  const replayed = readRun(replayedRun);
  const originals = new Map(original.records.map((record) => [resultKey(record.example_id, record.rollout_index), record]));
  const withLineage = replayed.records.filter((record) => record.lineage?.kind === 'replay');
  if (withLineage.length === 0)
    throw new CorralError(
      'CFG_ERR_INVALID',
      `${replayed.directory} is not a replayed run: its records carry no replay lineage (make one with \`corral replay\`)`,
    );
  const result: PairsExportResult = {
    outPath: resolve(options.outPath ?? join(replayed.directory, 'pairs.jsonl')),
    pairs: 0,
    replayed: 0,
    ties: 0,
    errored: 0,
    copied: 0,
    unmatched: 0,
  };
  const lines: string[] = [];
  for (const record of withLineage) {
    const lineage = record.lineage!;
    if (lineage.copied) {
      result.copied++;
      continue;
    }
    result.replayed++;
    const source = originals.get(lineage.source_record);
    if (!source) {
      result.unmatched++;
      continue;
    }
    if (record.reward === null || source.reward === null) {
      result.errored++;
      continue;
    }
    if (Math.abs(record.reward - source.reward) <= (options.minMargin ?? 0)) {
      result.ties++;
      continue;
    }
    const fromTurn = lineage.from_turn ?? 1;
    const sides = [
      { run: 'original' as const, record: source },
      { run: 'replay' as const, record },
    ].sort((left, right) => right.record.reward! - left.record.reward!);
    const [chosen, rejected] = sides as [(typeof sides)[number], (typeof sides)[number]];
    const pair: PreferencePair = {
      example_id: record.example_id,
      chosen_record: { run: chosen.run, key: resultKey(chosen.record.example_id, chosen.record.rollout_index), reward: chosen.record.reward! },
      rejected_record: { run: rejected.run, key: resultKey(rejected.record.example_id, rejected.record.rollout_index), reward: rejected.record.reward! },
      from_turn: fromTurn,
      prompt: [...source.prompt, ...beforeTurn(source.completion, fromTurn)],
      chosen: fromTurnOn(chosen.record.completion, fromTurn),
      rejected: fromTurnOn(rejected.record.completion, fromTurn),
    };
    lines.push(JSON.stringify(pair));
    result.pairs++;
  }
  await writeFile(result.outPath, lines.map((line) => `${line}\n`).join(''));
  return result;
}

function readRun(directory: string): { directory: string; records: ResultRecord[] } {
  const absolute = resolve(directory);
  if (!existsSync(join(absolute, 'results.jsonl')))
    throw new CorralError(
      'EXPORT_ERR_RUN_NOT_FOUND',
      `${absolute} is not a run directory: it has no results.jsonl (give the folder \`corral eval\` or \`corral replay\` wrote)`,
    );
  return { directory: absolute, records: ResultsWriter.readRecords(absolute) };
}

/** The index of the from_turn-th assistant message (the completion's length when there are fewer turns). */
function turnStart(completion: readonly ChatMessage[], fromTurn: number): number {
  let turn = 0;
  for (const [index, message] of completion.entries()) if (message.role === 'assistant' && ++turn === fromTurn) return index;
  return completion.length;
}

const beforeTurn = (completion: readonly ChatMessage[], fromTurn: number) => completion.slice(0, turnStart(completion, fromTurn));
const fromTurnOn = (completion: readonly ChatMessage[], fromTurn: number) => completion.slice(turnStart(completion, fromTurn));
