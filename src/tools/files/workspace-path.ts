import { z } from 'zod';

/** A path the sandbox resolves inside its workspace; leaving it (.., symlinks) is refused by the sandbox itself. */
export const workspacePathSchema = z.string().min(1).describe('Path relative to the workspace root, e.g. "src/main.py".');
