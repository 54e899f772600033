/**
 * `corral export samples`: every rollout of a run as training samples (runner/samples/build-samples.ts), one JSON
 * object a line in samples.jsonl, with the counts a trainer wants before it starts: samples from how many rollouts,
 * how many were split at a prefix break, how many have none and why. `corral eval --samples` writes the same file.
 */
import { existsSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CorralError } from '../core/errors.js';
import { buildSamples } from '../runner/samples/build-samples.js';
import { type SampleTally, addToTally, emptySampleTally } from '../runner/samples/sample-tally.js';
import { ResultsWriter } from '../runner/trajectory/results-writer.js';

export interface SamplesExportResult {
  outPath: string;
  tally: SampleTally;
}

/** Reads <run>/results.jsonl, builds every record's samples, writes them (atomically) to outPath (default <run>/samples.jsonl). */
export async function exportRunSamples(runDirectory: string, options: { outPath?: string } = {}): Promise<SamplesExportResult> {
  const directory = resolve(runDirectory);
  if (!existsSync(join(directory, 'results.jsonl')))
    throw new CorralError('EXPORT_ERR_RUN_NOT_FOUND', `${directory} is not a run directory: it has no results.jsonl (give the folder \`corral eval\` wrote)`);
  const outPath = resolve(options.outPath ?? join(directory, 'samples.jsonl'));
  const temporary = `${outPath}.${process.pid}.tmp`;
  const tally = emptySampleTally();
  const file = await open(temporary, 'w');
  try {
    for (const record of ResultsWriter.readRecords(directory)) {
      const built = buildSamples(record);
      addToTally(tally, built);
      if (built.samples.length > 0) await file.write(built.samples.map((sample) => `${JSON.stringify(sample)}\n`).join(''));
    }
  } finally {
    await file.close();
  }
  await rename(temporary, outPath);
  return { outPath, tally };
}
