/**
 * The task contract every loader produces, whatever the folder format. A TerminalTask is plain data: paths
 * on the host plus the resolved config (defaults applied, units in names). Nothing here touches Docker.
 */
export type TaskSourceFormat = 'harbor' | 'terminal-bench-v1';

/** [environment].network_mode: no-network → network none; public → egress allowed; allowlist is refused. */
export type TaskNetworkMode = 'no-network' | 'public';

export interface TaskHealthcheck {
  command: string;
  intervalSec: number;
  timeoutSec: number;
  retries: number;
  startPeriodSec: number;
}

export interface TaskEnvironment {
  /** Build context: environment/ (Harbor) or the task folder itself (TB v1). Undefined with dockerImage. */
  contextDirectory?: string;
  /** Dockerfile path relative to contextDirectory. */
  dockerfile?: string;
  /** A prebuilt image to use as is ([environment].docker_image); it must exist locally. */
  dockerImage?: string;
  buildTimeoutSec: number;
  cpus: number;
  memoryMb: number;
  storageMb?: number;
  env: Readonly<Record<string, string>>;
  /** Working directory of the agent and the verifier (default /app). */
  workdir: string;
  networkMode: TaskNetworkMode;
  healthcheck?: TaskHealthcheck;
}

export interface TerminalTask {
  /** [task].name, else the folder name. */
  name: string;
  /** Absolute path of the task folder. */
  directory: string;
  format: TaskSourceFormat;
  instruction: string;
  metadata: Readonly<Record<string, unknown>>;
  agent: { timeoutSec: number; user?: string };
  verifier: { timeoutSec: number; env: Readonly<Record<string, string>>; user?: string; environmentMode?: string };
  environment: TaskEnvironment;
  /** Absolute path of the folder copied to /tests for the verifier; it holds test.sh. */
  testsDirectory: string;
  /**
   * Absolute host path of the verifier's entry script: tests/test.sh (Harbor), or run-tests.sh beside
   * tests/ (TB v1), which the trial copies into /tests too. It runs as `bash /tests/<its name>`.
   */
  testScript: string;
  /** Absolute path of the oracle solution script, when the task ships one. */
  solutionScript?: string;
  /** Paths in the container collected after the trial ([artifacts] / artifacts = [...]). */
  artifacts: readonly string[];
}

/** One folder that did not load: the loaders never throw for a single bad task inside a dataset. */
export interface TaskLoadFailure {
  directory: string;
  /** A TASK_ERR_* code. */
  code: string;
  message: string;
}

export interface TaskDataset {
  root: string;
  tasks: readonly TerminalTask[];
  failures: readonly TaskLoadFailure[];
}

/** Harbor's defaults (harbor v0.22 task config): what a task that says nothing gets. */
export const TASK_DEFAULTS = Object.freeze({
  agentTimeoutSec: 600,
  verifierTimeoutSec: 600,
  buildTimeoutSec: 600,
  cpus: 1,
  memoryMb: 2048,
  workdir: '/app',
  networkMode: 'public' as TaskNetworkMode,
});
