import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CorralError } from '../../core/errors.js';

/**
 * Absolute host path of sandboxes/agent (the in-sandbox agent's Python files), for backends that mount or copy
 * it. Resolved from this file, so it works from src/ (tsx, vitest) and from dist/src/ after a build.
 */
export function agentDirectoryPath(): string {
  for (const relative of ['../../../sandboxes/agent/', '../../../../sandboxes/agent/']) {
    const candidate = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(`${candidate}agent.py`)) return candidate.replace(/\/$/, '');
  }
  throw new CorralError('SBX_ERR_UNAVAILABLE', `sandboxes/agent/agent.py not found relative to ${fileURLToPath(import.meta.url)}`);
}
