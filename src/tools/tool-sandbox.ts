/**
 * The sandbox a tool (and an environment's setup and cleanup hooks) sees: the restricted surface of files and
 * processes (STYLE principle 3). Nothing is leased until a method is first called; `session()` leases now and returns
 * the full restricted session (id, workspace, the JavaScript REPL of an isolate). Infrastructure faults (pool
 * exhausted, sandbox died) throw CorralErrors with SBX_/POOL_ codes.
 */
import { CorralError } from '../core/errors.js';
import type { CallOptions, SandboxFiles, SandboxSession } from '../sandbox/session.js';

export interface ToolSandbox {
  exec: SandboxSession['exec'];
  python: SandboxSession['python'];
  resetPython: SandboxSession['resetPython'];
  readonly files: SandboxFiles;
  session(options?: CallOptions): Promise<SandboxSession>;
}

/** A ToolSandbox over a way to get the session, which is asked on every method call (it leases on the first). */
export function lazyToolSandbox(session: (options: CallOptions) => Promise<SandboxSession>): ToolSandbox {
  const sessionFor = (options: CallOptions = {}) => session(options);
  const files: SandboxFiles = {
    read: async (options) => (await sessionFor(options)).files.read(options),
    write: async (options) => (await sessionFor(options)).files.write(options),
    edit: async (options) => (await sessionFor(options)).files.edit(options),
    list: async (options) => (await sessionFor(options)).files.list(options),
    stat: async (options) => (await sessionFor(options)).files.stat(options),
    glob: async (options) => (await sessionFor(options)).files.glob(options),
    grep: async (options) => (await sessionFor(options)).files.grep(options),
    remove: async (options) => (await sessionFor(options)).files.remove(options),
    mkdir: async (options) => (await sessionFor(options)).files.mkdir(options),
  };
  return Object.freeze({
    exec: async (options: Parameters<SandboxSession['exec']>[0]) => (await sessionFor(options)).exec(options),
    python: async (options: Parameters<SandboxSession['python']>[0]) => (await sessionFor(options)).python(options),
    resetPython: async (options: CallOptions = {}) => (await sessionFor(options)).resetPython(options),
    files: Object.freeze(files),
    session: sessionFor,
  });
}

/** Where no sandbox is wired (a direct invokeTool of a tool that needs none): using it is a wiring fault, not the model's. */
export function unavailableToolSandbox(toolName: string): ToolSandbox {
  return lazyToolSandbox(async () => {
    throw new CorralError('SBX_ERR_UNAVAILABLE', `tool ${toolName} used its sandbox but none was provided`);
  });
}
