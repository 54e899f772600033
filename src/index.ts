// The public seam: named exports only (no star re-exports), so what we promise is explicit.
export { CorralError, ERROR_CODES } from './core/errors.js';
export type { ErrorAudience, ErrorCode } from './core/errors.js';
export { loadConfig } from './config/load-config.js';
export type { CorralConfig } from './config/load-config.js';
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
export type { Lease } from './sandbox/lease.js';
export { SandboxPool } from './sandbox/pool/sandbox-pool.js';
export type { PoolOptions } from './sandbox/pool/pool-options.js';
export { loadProvider } from './sandbox/registry.js';
