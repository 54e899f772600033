/**
 * The restricted surface tools get: run things and touch files. No lifecycle here (create, reset, destroy
 * and network policy belong to the pool). Every method takes one options object with an optional
 * `abortSignal`. Failures inside the sandbox (non-zero exit, traceback) are values; only infrastructure
 * faults throw (CorralError with an SBX_ERR_* code). A missing file is `null`, never a throw.
 */
import type { BackendName } from './spec.js';

/** 'fork': the pool can start new sandboxes from a copy of this one's file system (Lease.fork, docs/sandboxes.md). */
export type Capability = 'exec' | 'python' | 'files' | 'javascript' | 'fork';

export interface CallOptions {
  abortSignal?: AbortSignal;
  /** Per-call timeout in ms; the backend's default applies when absent. */
  timeoutMs?: number;
}

export interface ExecOptions extends CallOptions {
  /** Run by `bash -c` (a string) or directly (an argv array). */
  command: string | readonly string[];
  /** Working directory, relative to the workspace (default: the workspace root). */
  cwd?: string;
  env?: Readonly<Record<string, string>>;
  stdin?: string;
  /** Cap per stream in characters (default 30,000); output beyond it is drained and dropped, never blocking the child. */
  maxOutputChars?: number;
}

export interface ExecResult {
  exitCode: number | null;
  /** Signal that ended the process, e.g. 'SIGKILL', or null. */
  signal: string | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** The timeout passed: the whole process group got SIGTERM, then SIGKILL. */
  timedOut: boolean;
  durationMs: number;
}

export interface PythonOptions extends CallOptions {
  code: string;
  maxOutputChars?: number;
}

export interface PythonError {
  name: string;
  message: string;
  traceback: string;
}

export interface PythonResult {
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** repr() of the trailing expression, as Jupyter shows it, or null. */
  value: string | null;
  error: PythonError | null;
  timedOut: boolean;
  /** The REPL died (crash, timeout, memory) and was restarted: earlier variables are gone. */
  stateLost: boolean;
  durationMs: number;
}

export interface JavascriptOptions extends CallOptions {
  code: string;
}

export interface JavascriptResult {
  /** Completion value, copied out of the isolate and rendered as text, or null for undefined. */
  value: string | null;
  /** console.log/info/warn/error lines captured during the call. */
  logs: string[];
  error: { name: string; message: string; stack: string } | null;
  timedOut: boolean;
  /** The context was rebuilt (timeout or memory limit): earlier globals are gone. */
  stateLost: boolean;
  durationMs: number;
}

export type FileEncoding = 'utf8' | 'base64';

export interface FileContent {
  content: string;
  encoding: FileEncoding;
  sizeBytes: number;
  /** True when `maxBytes` cut the content short. */
  truncated: boolean;
}

export interface FileStat {
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  sizeBytes: number;
  modifiedMs: number;
  mode: number;
}

export interface DirectoryEntry {
  name: string;
  type: FileStat['type'];
  sizeBytes: number;
}

export interface GrepMatch {
  path: string;
  line: number;
  text: string;
}

/**
 * File operations confined to the workspace. Paths are relative to the workspace root (absolute paths are
 * accepted only when inside it). `..` or a symlink that leads outside throws SBX_ERR_PERMISSION.
 */
export interface SandboxFiles {
  read(options: CallOptions & { path: string; encoding?: FileEncoding; maxBytes?: number }): Promise<FileContent | null>;
  write(options: CallOptions & { path: string; content: string; encoding?: FileEncoding; createParents?: boolean }): Promise<{ sizeBytes: number }>;
  /** Exact string replace. Throws SBX_ERR_INVALID_ARGUMENT when oldText is absent, or present more than once without replaceAll. */
  edit(options: CallOptions & { path: string; oldText: string; newText: string; replaceAll?: boolean }): Promise<{ replacements: number } | null>;
  list(options: CallOptions & { path?: string }): Promise<DirectoryEntry[] | null>;
  stat(options: CallOptions & { path: string }): Promise<FileStat | null>;
  glob(options: CallOptions & { pattern: string; path?: string; maxResults?: number }): Promise<string[]>;
  grep(options: CallOptions & { pattern: string; path?: string; glob?: string; ignoreCase?: boolean; maxResults?: number }): Promise<GrepMatch[]>;
  remove(options: CallOptions & { path: string; recursive?: boolean }): Promise<boolean>;
  mkdir(options: CallOptions & { path: string }): Promise<void>;
}

export interface SandboxSession {
  readonly id: string;
  readonly backend: BackendName;
  readonly capabilities: ReadonlySet<Capability>;
  /** Absolute path of the workspace as seen inside the sandbox (e.g. /workspace). */
  readonly workspace: string;
  exec(options: ExecOptions): Promise<ExecResult>;
  python(options: PythonOptions): Promise<PythonResult>;
  /** Restart the Python REPL, discarding its state. */
  resetPython(options?: CallOptions): Promise<void>;
  javascript(options: JavascriptOptions): Promise<JavascriptResult>;
  readonly files: SandboxFiles;
}
