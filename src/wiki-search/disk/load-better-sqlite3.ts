/**
 * Loads the native better-sqlite3 module on first use. It is an optionalDependency (the packed-install tests omit
 * optional native builds), so the in-memory wiki index and everything else must work without it: nothing imports it
 * statically, and a missing module becomes WIKI_ERR_SQLITE_UNAVAILABLE naming the install command.
 */
import { CorralError } from '../../core/errors.js';

export type BetterSqlite3 = typeof import('better-sqlite3');
export type SqliteDatabase = import('better-sqlite3').Database;

/** The version the disk index is written and tested against. */
export const BETTER_SQLITE3_VERSION = '12.11.1';

let loading: Promise<BetterSqlite3> | undefined;

/** Resolves the module once per process; a failed load is retried next time. */
export function loadBetterSqlite3(): Promise<BetterSqlite3> {
  loading ??= import('better-sqlite3').then(
    (imported) => imported.default,
    (error: unknown) => {
      loading = undefined;
      if (!isModuleMissing(error)) throw error;
      throw new CorralError(
        'WIKI_ERR_SQLITE_UNAVAILABLE',
        `the disk wiki index needs the optional native module better-sqlite3, which is not installed: run \`npm install better-sqlite3@${BETTER_SQLITE3_VERSION}\``,
        { cause: error },
      );
    },
  );
  return loading;
}

/** True only when better-sqlite3 itself is absent, not when it is present but its native binding fails to load. */
function isModuleMissing(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && typeof message === 'string' && message.includes("'better-sqlite3'");
}
