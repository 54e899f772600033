// `corral/sandbox`: the sandbox contracts (spec, session, provider, lease), the backend registry and the warm pool,
// for hosts that lease sandboxes themselves. Named exports only. An environment's own code never needs this: it
// gets the restricted EnvironmentSandbox from `corral`.
export { parseSandboxSpec, specHash, BACKEND_NAMES } from './sandbox/spec.js';
export type { BackendName, SandboxSpec, SandboxSpecInput } from './sandbox/spec.js';
export type {
  Capability,
  CallOptions,
  ExecOptions,
  ExecResult,
  PythonOptions,
  PythonResult,
  JavascriptOptions,
  JavascriptResult,
  SandboxFiles,
  SandboxSession,
} from './sandbox/session.js';
export type { SandboxProvider, SandboxHandle, Availability, ResetReport } from './sandbox/provider.js';
export type { Lease, ForkOptions } from './sandbox/lease.js';
export type { SandboxSnapshot, SnapshotOptions, FileSystemCopy } from './sandbox/snapshot.js';
export { loadProvider } from './sandbox/registry.js';
export type { BackendOptions } from './sandbox/registry.js';
export { SandboxPool } from './sandbox/pool/sandbox-pool.js';
export type { AcquireOptions } from './sandbox/pool/sandbox-pool.js';
export type { PoolOptions } from './sandbox/pool/pool-options.js';
