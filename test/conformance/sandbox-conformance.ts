/**
 * The sandbox conformance suite every backend runs (STYLE.md principle 7). Backend-neutral: it learns the
 * workspace from session.workspace and skips what the session's capabilities do not offer.
 *
 *   describeSandboxConformance('process', async () => new ProcessProvider(), { backend: 'process' });
 */
import { describe } from 'vitest';
import type { SandboxProvider } from '../../src/sandbox/provider.js';
import type { SandboxSpecInput } from '../../src/sandbox/spec.js';
import { describeAdversarialConformance } from './conformance-adversarial.js';
import { describeConfinementConformance } from './conformance-confinement.js';
import { describeExecConformance } from './conformance-exec.js';
import { describeFileConformance } from './conformance-files.js';
import { describeIsolationConformance } from './conformance-isolation.js';
import { describeLifecycleConformance } from './conformance-lifecycle.js';
import { describePythonConformance } from './conformance-python.js';
import { describeResetConformance } from './conformance-reset.js';

export function describeSandboxConformance(name: string, makeProvider: () => Promise<SandboxProvider>, spec: SandboxSpecInput): void {
  describe(`sandbox conformance: ${name}`, () => {
    describeFileConformance(makeProvider, spec);
    describeConfinementConformance(makeProvider, spec);
    describeExecConformance(makeProvider, spec);
    describePythonConformance(makeProvider, spec);
    describeResetConformance(makeProvider, spec);
    describeIsolationConformance(makeProvider, spec);
    describeLifecycleConformance(makeProvider, spec);
    describeAdversarialConformance(makeProvider, spec);
  });
}
