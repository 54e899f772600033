/**
 * The sandbox conformance suite every backend runs (STYLE.md principle 7). Backend-neutral: it learns the
 * workspace from session.workspace and registers only the tests for the capabilities the backend declares.
 *
 *   describeSandboxConformance('process', async () => new ProcessProvider(), { backend: 'process' }, ['exec', 'python', 'files', 'fork']);
 */
import { describe } from 'vitest';
import type { SandboxProvider } from '../../src/sandbox/provider.js';
import type { Capability } from '../../src/sandbox/session.js';
import type { SandboxSpecInput } from '../../src/sandbox/spec.js';
import { declareCapabilities } from './sandbox-fixture.js';
import { describeAdversarialConformance } from './conformance-adversarial.js';
import { describeAgentProtectionConformance } from './conformance-agent-protection.js';
import { describeConfinementConformance } from './conformance-confinement.js';
import { describeExecConformance } from './conformance-exec.js';
import { describeFileConformance } from './conformance-files.js';
import { describeForkConformance, describeForkRefusalConformance } from './conformance-fork.js';
import { describeHardeningConformance } from './conformance-hardening.js';
import { describeIsolationConformance } from './conformance-isolation.js';
import { describeLifecycleConformance } from './conformance-lifecycle.js';
import { describeProcessSharingConformance } from './conformance-process-sharing.js';
import { describePythonConformance } from './conformance-python.js';
import { describeResetConformance } from './conformance-reset.js';

export function describeSandboxConformance(
  name: string,
  makeProvider: () => Promise<SandboxProvider>,
  spec: SandboxSpecInput,
  capabilities: readonly Capability[] = ['exec', 'python', 'files'],
): void {
  declareCapabilities(capabilities);
  const offers = (...needed: Capability[]) => needed.some((capability) => capabilities.includes(capability));
  // A group is registered only when the backend offers something it tests: vitest fails empty describe blocks.
  describe(`sandbox conformance: ${name}`, () => {
    if (offers('files')) describeFileConformance(makeProvider, spec);
    if (offers('files')) describeConfinementConformance(makeProvider, spec);
    if (offers('exec')) describeExecConformance(makeProvider, spec);
    if (offers('exec')) describeProcessSharingConformance(makeProvider, spec);
    if (offers('python')) describePythonConformance(makeProvider, spec);
    if (offers('exec', 'files', 'python')) describeResetConformance(makeProvider, spec);
    if (offers('exec', 'python')) describeIsolationConformance(makeProvider, spec);
    describeLifecycleConformance(makeProvider, spec);
    if (offers('exec', 'python')) describeAdversarialConformance(makeProvider, spec);
    if (offers('exec')) describeAgentProtectionConformance(makeProvider, spec);
    if (offers('exec', 'python')) describeHardeningConformance(makeProvider, spec);
    if (offers('fork')) describeForkConformance(makeProvider, spec);
    else describeForkRefusalConformance(makeProvider, spec);
  });
}
