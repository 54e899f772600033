import { describe } from 'vitest';
import { ProcessProvider } from '../../src/sandbox/process/process-provider.js';
import { backendAvailable } from '../helpers/backend-gate.js';
import { describeSandboxConformance } from './sandbox-conformance.js';

const available = await backendAvailable('process');

describe.skipIf(!available)('process backend (bubblewrap)', () => {
  describeSandboxConformance('process', async () => new ProcessProvider(), {
    backend: 'process',
    memoryMiB: 256,
    workspaceMiB: 64,
  });
});
