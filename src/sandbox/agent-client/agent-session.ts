import { CorralError } from '../../core/errors.js';
import type {
  CallOptions,
  Capability,
  ExecOptions,
  ExecResult,
  JavascriptResult,
  PythonOptions,
  PythonResult,
  SandboxFiles,
  SandboxSession,
} from '../session.js';
import type { BackendName } from '../spec.js';
import { AgentFiles } from './agent-files.js';
import type { AgentOp } from './wire-protocol.js';

/** Sends one op to the agent; resolves with its result object (see AgentConnection.call). */
export type AgentCall = (op: AgentOp, args: Record<string, unknown>, options: CallOptions) => Promise<Record<string, unknown>>;

/** What every agent-backed sandbox offers; a backend that can fork one adds 'fork' (FORKABLE_AGENT_CAPABILITIES). */
const CAPABILITIES: ReadonlySet<Capability> = new Set<Capability>(['exec', 'python', 'files']);
export const FORKABLE_AGENT_CAPABILITIES: ReadonlySet<Capability> = new Set<Capability>([...CAPABILITIES, 'fork']);

/** The restricted SandboxSession every agent-backed sandbox (process, docker, later kubernetes) hands to tools. */
export class AgentSession implements SandboxSession {
  readonly id: string;
  readonly backend: BackendName;
  readonly workspace: string;
  readonly capabilities: ReadonlySet<Capability>;
  readonly files: SandboxFiles;
  private readonly defaultTimeoutMs: number;

  constructor(
    info: { id: string; backend: BackendName; workspace: string; defaultTimeoutMs: number; capabilities?: ReadonlySet<Capability> },
    private readonly call: AgentCall,
  ) {
    this.id = info.id;
    this.backend = info.backend;
    this.workspace = info.workspace;
    this.capabilities = info.capabilities ?? CAPABILITIES;
    this.defaultTimeoutMs = info.defaultTimeoutMs;
    this.files = new AgentFiles(call);
  }

  async exec(options: ExecOptions): Promise<ExecResult> {
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const result = await this.call(
      'exec',
      {
        command: typeof options.command === 'string' ? options.command : [...options.command],
        cwd: options.cwd,
        env: options.env,
        stdin: options.stdin,
        maxOutputChars: options.maxOutputChars,
      },
      { timeoutMs, abortSignal: options.abortSignal },
    );
    return result as unknown as ExecResult;
  }

  async python(options: PythonOptions): Promise<PythonResult> {
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const result = await this.call('python', { code: options.code, maxOutputChars: options.maxOutputChars }, { timeoutMs, abortSignal: options.abortSignal });
    return result as unknown as PythonResult;
  }

  async resetPython(options: CallOptions = {}): Promise<void> {
    await this.call('python_reset', {}, { timeoutMs: options.timeoutMs ?? 30_000, abortSignal: options.abortSignal });
  }

  async javascript(): Promise<JavascriptResult> {
    throw new CorralError('SBX_ERR_UNSUPPORTED', `the ${this.backend} backend runs no JavaScript REPL; use the isolate backend`);
  }
}
