/**
 * The restricted surface tools get from an isolate sandbox: a persistent JavaScript REPL and nothing else. There is
 * no workspace (`workspace` is ''), no shell, no Python and no files; those methods reject with SBX_ERR_UNSUPPORTED.
 */
import type {
  CallOptions,
  Capability,
  ExecOptions,
  ExecResult,
  JavascriptOptions,
  JavascriptResult,
  PythonOptions,
  PythonResult,
  SandboxFiles,
  SandboxSession,
} from '../session.js';
import type { JavascriptRepl } from './javascript-repl.js';
import { unsupported, unsupportedFiles } from './unsupported-operations.js';

export class IsolateSession implements SandboxSession {
  readonly backend = 'isolate' as const;
  readonly capabilities: ReadonlySet<Capability> = new Set<Capability>(['javascript']);
  readonly workspace = '';
  readonly files: SandboxFiles = unsupportedFiles;

  constructor(
    readonly id: string,
    private readonly repl: JavascriptRepl,
  ) {}

  /**
   * Runs `code` as the next cell of the REPL (default timeout 5000 ms). Errors thrown by the code, timeouts and
   * memory overflow are values in the result; throws SBX_ERR_CLOSED, ERR_ABORTED or SBX_ERR_KILLED (reset mid-call).
   */
  javascript(options: JavascriptOptions): Promise<JavascriptResult> {
    return this.repl.run(options);
  }

  exec(_options: ExecOptions): Promise<ExecResult> {
    return unsupported('exec');
  }

  python(_options: PythonOptions): Promise<PythonResult> {
    return unsupported('python');
  }

  resetPython(_options?: CallOptions): Promise<void> {
    return unsupported('resetPython');
  }
}
