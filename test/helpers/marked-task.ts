/**
 * A copy of the always-zero Harbor fixture whose verifier pays 1 exactly when /app/mark exists, so a test can tell
 * a trial that did the work from one that did not. With `oracleWritesMark`, the task's solve.sh writes the mark (the
 * oracle agent then scores 1); without, only an agent's own command does.
 */
import { cp, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const ALWAYS_ZERO = resolve(import.meta.dirname, '../fixtures/terminal/hostile/always-zero');

export async function markedHarborTask(parent: string, options: { oracleWritesMark: boolean }): Promise<string> {
  const directory = join(parent, 'marked');
  await cp(ALWAYS_ZERO, directory, { recursive: true });
  if (options.oracleWritesMark) await writeFile(join(directory, 'solution/solve.sh'), '#!/bin/bash\necho done > /app/mark\n', { mode: 0o755 });
  await writeFile(
    join(directory, 'tests/test.sh'),
    '#!/bin/bash\n[ -f /app/mark ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n',
    { mode: 0o755 },
  );
  return directory;
}
