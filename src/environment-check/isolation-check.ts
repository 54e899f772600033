/**
 * isolation.network-declared: a sandbox gets network only when the environment declares it, in its own `sandbox`
 * (`network: 'egress'`, one place an operator reads). An example that asks for egress the environment does not
 * declare is an error; a declared egress is reported, since rollouts can then reach the internet.
 */
import type { Environment, Example } from '../runner/contract/environment.js';
import { type CheckResult, failed, passed } from './check-report.js';

export function checkNetworkDeclared(environment: Environment, examples: readonly Example[]): CheckResult {
  const declared = environment.sandbox['network'] === 'egress';
  const asking = examples.filter((example) => example.sandbox?.network === 'egress').map((example) => example.id);
  const evidence = { declared: declared ? 'egress' : (environment.sandbox['network'] ?? 'none'), examples_asking_egress: asking.slice(0, 20) };
  if (!declared && asking.length > 0) {
    return failed(
      'isolation.network-declared',
      'error',
      `${asking.length} examples ask for network egress, which the environment does not declare (sandbox: { network: 'egress' })`,
      evidence,
    );
  }
  return passed('isolation.network-declared', declared ? 'the environment declares network egress' : 'no sandbox asks for network', evidence);
}
