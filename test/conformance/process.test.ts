import { describe } from 'vitest';
import { ProcessProvider } from '../../src/sandbox/process/process-provider.js';
import { namespaceCopyUnavailable } from '../../src/sandbox/file-system-copy/namespace-tar.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { describeSandboxConformance } from './sandbox-conformance.js';

const available = await backendAvailable('process');

describe.skipIf(!available)('process backend (bubblewrap)', () => {
  // Fork needs root here (the copy runs in the sandbox's namespace); elsewhere the suite checks the typed refusal.
  const forks = namespaceCopyUnavailable() === null;
  describeSandboxConformance('process', async () => new ProcessProvider(), { backend: 'process', memoryMiB: 256, workspaceMiB: 64 }, [
    'exec',
    'python',
    'files',
    ...(forks ? (['fork'] as const) : []),
  ]);
});
