/**
 * The isolate backend offers only the `javascript` capability. Everything else rejects with SBX_ERR_UNSUPPORTED
 * (audience: caller), because asking an isolate for a shell is a wiring mistake, not something the model did.
 */
import { CorralError } from '../../core/errors.js';
import type { SandboxFiles } from '../session.js';

export function unsupported(operation: string): Promise<never> {
  return Promise.reject(
    new CorralError('SBX_ERR_UNSUPPORTED', `the isolate backend runs JavaScript only; ${operation} needs the docker or process backend`, {
      details: { backend: 'isolate', operation },
    }),
  );
}

/** There is no filesystem inside an isolate, so no workspace to read or write. */
export const unsupportedFiles: SandboxFiles = Object.freeze({
  read: () => unsupported('files.read'),
  write: () => unsupported('files.write'),
  edit: () => unsupported('files.edit'),
  list: () => unsupported('files.list'),
  stat: () => unsupported('files.stat'),
  glob: () => unsupported('files.glob'),
  grep: () => unsupported('files.grep'),
  remove: () => unsupported('files.remove'),
  mkdir: () => unsupported('files.mkdir'),
});
