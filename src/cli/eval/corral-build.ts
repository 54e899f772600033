/** Which corral made a run: the package version, and the git commit when it runs from a checkout. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { corralVersion, projectRoot } from '../../core/project-root.js';

export function corralBuild(): { corral_version: string; git_commit: string | null } {
  return { corral_version: corralVersion(), git_commit: gitCommit() };
}

function gitCommit(): string | null {
  const root = projectRoot();
  if (!existsSync(join(root, '.git'))) return null;
  try {
    return execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8', timeout: 5_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
  } catch {
    return null;
  }
}
