/**
 * A stand-in for the files and shell MCP tools over a local temporary directory, for rubric and code-agent
 * tests: read_file, write_file and bash (run with the host's bash, shapes as the real tools return them:
 * {stdout, stderr, exit_code, timed_out}). Only for trusted test code: there is no sandbox here.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolAccess, ToolInfo, ToolOutcome } from '../../../../../src/runner/contract/tool-access.js';

export class FakeWorkspaceTools implements ToolAccess {
  readonly tools: ToolInfo[] = ['read_file', 'write_file', 'bash'].map((name) => ({ name, description: name, inputSchema: {} }));
  readonly directory = mkdtempSync(join(tmpdir(), 'corral-workspace-'));
  readonly calls: { name: string; args: Record<string, unknown> }[] = [];
  /** What each bash call returned, in call order. */
  readonly bashOutcomes: ToolOutcome[] = [];

  async call(name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    this.calls.push({ name, args });
    const path = join(this.directory, String(args.path ?? ''));
    if (name === 'read_file') {
      try {
        const content = readFileSync(path, 'utf8');
        return { text: content, structuredContent: { path: String(args.path), content }, isError: false };
      } catch {
        return {
          text: `Error (SBX_ERR_NOT_FOUND): no file ${String(args.path)}`,
          structuredContent: { error: { code: 'SBX_ERR_NOT_FOUND', message: 'no such file' } },
          isError: true,
        };
      }
    }
    if (name === 'write_file') {
      writeFileSync(path, String(args.content ?? ''));
      return { text: `wrote ${String(args.path)}`, structuredContent: { path: String(args.path) }, isError: false };
    }
    if (name === 'bash') {
      const outcome = await this.bash(String(args.command ?? ''), Number(args.timeout_s ?? 30));
      this.bashOutcomes.push(outcome);
      return outcome;
    }
    return { text: `Error: unknown tool ${name}`, isError: true };
  }

  private bash(command: string, timeoutSeconds: number): Promise<ToolOutcome> {
    return new Promise((resolve) => {
      const child = spawn('bash', ['-c', command], { cwd: this.directory, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let stdout = '';
      let stderr = '';
      let timedOut = false;
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const timer = setTimeout(() => {
        timedOut = true;
        process.kill(-child.pid!, 'SIGKILL');
      }, timeoutSeconds * 1000);
      child.on('close', (code) => {
        clearTimeout(timer);
        const exitCode = timedOut ? null : code;
        resolve({
          text: `exit code: ${exitCode}\n${stdout}${stderr}`,
          structuredContent: { stdout, stderr, exit_code: exitCode, timed_out: timedOut },
          isError: exitCode !== 0,
        });
      });
    });
  }

  dispose(): void {
    rmSync(this.directory, { recursive: true, force: true });
  }
}
