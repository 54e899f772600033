import type { CallOptions, DirectoryEntry, FileContent, FileEncoding, FileStat, GrepMatch, SandboxFiles } from '../session.js';
import type { AgentCall } from './agent-session.js';
import { nullIfNotFound } from './wire-errors.js';

const FILE_TIMEOUT_MS = 30_000;

function callOptions(options: CallOptions): CallOptions {
  return { timeoutMs: options.timeoutMs ?? FILE_TIMEOUT_MS, abortSignal: options.abortSignal };
}

/** File operations served by the agent, confined to the workspace there. NOT_FOUND becomes null (or false, or []). */
export class AgentFiles implements SandboxFiles {
  constructor(private readonly call: AgentCall) {}

  async read(options: CallOptions & { path: string; encoding?: FileEncoding; maxBytes?: number }): Promise<FileContent | null> {
    const args = { path: options.path, encoding: options.encoding ?? 'utf8', maxBytes: options.maxBytes };
    const result = await nullIfNotFound(this.call('read', args, callOptions(options)));
    return result as unknown as FileContent | null;
  }

  async write(options: CallOptions & { path: string; content: string; encoding?: FileEncoding; createParents?: boolean }): Promise<{ sizeBytes: number }> {
    const args = { path: options.path, content: options.content, encoding: options.encoding ?? 'utf8', createParents: options.createParents ?? true };
    const result = await this.call('write', args, callOptions(options));
    return { sizeBytes: Number(result.sizeBytes) };
  }

  async edit(options: CallOptions & { path: string; oldText: string; newText: string; replaceAll?: boolean }): Promise<{ replacements: number } | null> {
    const args = { path: options.path, oldText: options.oldText, newText: options.newText, replaceAll: options.replaceAll ?? false };
    const result = await nullIfNotFound(this.call('edit', args, callOptions(options)));
    return result === null ? null : { replacements: Number(result.replacements) };
  }

  async list(options: CallOptions & { path?: string }): Promise<DirectoryEntry[] | null> {
    const result = await nullIfNotFound(this.call('list', { path: options.path ?? '.' }, callOptions(options)));
    return result === null ? null : (result.entries as DirectoryEntry[]);
  }

  async stat(options: CallOptions & { path: string }): Promise<FileStat | null> {
    const result = await nullIfNotFound(this.call('stat', { path: options.path }, callOptions(options)));
    return result as unknown as FileStat | null;
  }

  async glob(options: CallOptions & { pattern: string; path?: string; maxResults?: number }): Promise<string[]> {
    const args = { pattern: options.pattern, path: options.path, maxResults: options.maxResults };
    const result = await nullIfNotFound(this.call('glob', args, callOptions(options)));
    return result === null ? [] : (result.paths as string[]);
  }

  async grep(options: CallOptions & { pattern: string; path?: string; glob?: string; ignoreCase?: boolean; maxResults?: number }): Promise<GrepMatch[]> {
    const args = { pattern: options.pattern, path: options.path, glob: options.glob, ignoreCase: options.ignoreCase ?? false, maxResults: options.maxResults };
    const result = await nullIfNotFound(this.call('grep', args, callOptions(options)));
    return result === null ? [] : (result.matches as GrepMatch[]);
  }

  async remove(options: CallOptions & { path: string; recursive?: boolean }): Promise<boolean> {
    const result = await this.call('remove', { path: options.path, recursive: options.recursive ?? false }, callOptions(options));
    return result.removed === true;
  }

  async mkdir(options: CallOptions & { path: string }): Promise<void> {
    await this.call('mkdir', { path: options.path }, callOptions(options));
  }
}
