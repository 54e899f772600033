// Child process for the leak benchmark and fault tests: creates sandboxes in its own pool, says "ready", then
// waits to be SIGKILLed so its sandboxes are orphaned. Usage: tsx benchmarks/orphan-owner.ts <backend> <count>
import { SandboxPool } from '../src/sandbox/pool/sandbox-pool.js';
import type { BackendName } from '../src/sandbox/spec.js';

const backend = (process.argv[2] ?? 'docker') as BackendName;
const count = Number(process.argv[3] ?? 3);
const pool = new SandboxPool({ healthIntervalMs: 0, reapIntervalMs: 0 });
const leases = await Promise.all(Array.from({ length: count }, () => pool.acquire({ backend })));
process.stdout.write(`ready ${leases.length}\n`);
setInterval(() => undefined, 60_000);
