/**
 * What the runner benches need from the composition root: the tool sessions `corral eval` would give an
 * environment (in-process MCP servers over the pooled sandboxes and the shared wiki index). The CLI builds them,
 * so the benches run exactly the eval wiring without importing cli/.
 */
import type { Environment } from '../src/runner/contract/environment.js';
import type { ToolSessionFactory } from '../src/runner/contract/tool-session.js';

export interface BenchToolRuntime {
  tools: ToolSessionFactory;
  backend: 'docker' | 'process';
  /** Sandboxes created so far by this runtime's pool, for the log. */
  sandboxesCreated(): number;
  close(): Promise<void>;
}

export type OpenBenchTools = (environment: Environment, options: { backend: 'docker' | 'process' }) => Promise<BenchToolRuntime>;
