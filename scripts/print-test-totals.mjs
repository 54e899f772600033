// Prints vitest's totals as one plain line ("tests: N passed, N failed, N skipped") for CI logs that read it.
import { readFileSync } from 'node:fs';

const results = JSON.parse(readFileSync(process.argv[2] ?? '.cache/vitest-results.json', 'utf8'));
const skipped = (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
console.log(`tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`);
process.exitCode = results.numFailedTests > 0 || results.numTotalTests === 0 ? 1 : 0;
