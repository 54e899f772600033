/** `corral eval --samples`: after the run, <run>/samples.jsonl from its records, the counts, and the warning when tokens were missing. */
import { exportRunSamples } from '../../export/samples-export.js';
import { describeTally } from '../../runner/samples/sample-tally.js';
import { TOKENS_MISSING_WARNING } from '../../runner/samples/token-data-warning.js';

export async function writeRunSamples(directory: string, log: (line: string) => void): Promise<void> {
  const { outPath, tally } = await exportRunSamples(directory);
  log(`${describeTally(tally)} -> ${outPath}`);
  if (tally.without_samples.tokens_missing > 0) log(`warning: ${TOKENS_MISSING_WARNING}`);
}
