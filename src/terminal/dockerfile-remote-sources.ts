/**
 * Task folders are untrusted input, and `docker build` runs ADD's downloads in the daemon, on the host's network:
 * `ADD http://127.0.0.1:<port>/secret /secret` would copy a host-only service's answer into the task image, where
 * the agent reads it. So a task Dockerfile may only copy from its own context and its own build stages: remote ADD
 * sources (any URL scheme, git repositories), a variable in an ADD source (it may expand to a URL) and --from
 * values that are neither an earlier stage nor a stage index (an image reference makes the daemon pull; a URL
 * fetches) are refused before any build.
 */
import { CorralError } from '../core/errors.js';

export interface RemoteSource {
  /** 1-based line where the instruction starts. */
  line: number;
  instruction: string;
  /** What would be fetched (a source, or the --from value). */
  source: string;
  reason: string;
}

const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const GIT_SSH = /^[\w.-]+@[\w.-]+:/;
const STAGE_ALIAS = /^\s*FROM\s+(?:--\S+\s+)*\S+\s+AS\s+(\S+)\s*$/i;

/** Every place the Dockerfile would fetch from outside its context and stages (empty when none). */
export function findRemoteSources(dockerfile: string): RemoteSource[] {
  const found: RemoteSource[] = [];
  const stages: string[] = [];
  for (const { line, text } of logicalLines(dockerfile)) {
    const alias = STAGE_ALIAS.exec(text);
    if (alias) stages.push(alias[1]!.toLowerCase());
    inspectInstruction(text, line, stages, found);
  }
  return found;
}

/** Throws TASK_ERR_REMOTE_SOURCE naming every remote source of the task's Dockerfile. */
export function assertNoRemoteSources(taskName: string, dockerfile: string): void {
  const found = findRemoteSources(dockerfile);
  if (found.length === 0) return;
  const listed = found.map((each) => `line ${each.line}: ${each.instruction} ${each.source} (${each.reason})`).join('; ');
  throw new CorralError(
    'TASK_ERR_REMOTE_SOURCE',
    `${taskName}: the Dockerfile fetches from outside its build context, which corral refuses (the daemon would fetch on the host's network): ${listed}. Put the file in environment/ and COPY it.`,
    { details: { sources: found } },
  );
}

function inspectInstruction(text: string, line: number, stages: readonly string[], found: RemoteSource[]): void {
  const match = /^\s*(\w+)\s*(.*)$/s.exec(text);
  if (!match) return;
  const instruction = match[1]!.toUpperCase();
  const rest = match[2]!;
  if (instruction === 'ONBUILD') return inspectInstruction(rest, line, stages, found);
  if (instruction !== 'ADD' && instruction !== 'COPY') return;
  const { flags, operands } = splitArguments(rest);
  for (const flag of flags) {
    const from = /^--from=(.*)$/i.exec(flag)?.[1];
    if (from === undefined) continue;
    const isStage = /^\d+$/.test(from) || stages.includes(from.toLowerCase());
    if (!isStage) found.push({ line, instruction, source: flag, reason: 'not an earlier build stage: an image would be pulled, a URL fetched' });
  }
  if (instruction !== 'ADD') return;
  for (const source of operands.slice(0, -1)) {
    if (URL_SCHEME.test(source) || GIT_SSH.test(source)) found.push({ line, instruction, source, reason: 'a remote source' });
    else if (source.includes('$')) found.push({ line, instruction, source, reason: 'a variable, which may expand to a URL' });
  }
}

/** Flags (--x=y) first, then the operands, in shell form or JSON-array form. */
function splitArguments(rest: string): { flags: string[]; operands: string[] } {
  const words = rest.trim().split(/\s+/).filter(Boolean);
  const flags: string[] = [];
  while (words[0]?.startsWith('--')) flags.push(words.shift()!);
  const remainder = words.join(' ');
  if (remainder.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(remainder);
      if (Array.isArray(parsed)) return { flags, operands: parsed.map(String) };
    } catch {
      // Not valid JSON: Docker then reads it in shell form too.
    }
  }
  return { flags, operands: words };
}

/**
 * Instructions with their continuation lines joined (the escape character is `\` or the `# escape=` directive's),
 * comment lines dropped, and heredoc bodies (`<<EOF` ... `EOF`) skipped.
 */
function logicalLines(dockerfile: string): Array<{ line: number; text: string }> {
  const lines = dockerfile.split(/\r?\n/);
  let escape = '\\';
  // Parser directives (`# key=value`) come first, before any other line.
  for (const text of lines) {
    const directive = /^#\s*(\w+)\s*=\s*(\S*)\s*$/.exec(text);
    if (!directive) break;
    if (directive[1]!.toLowerCase() === 'escape' && (directive[2] === '`' || directive[2] === '\\')) escape = directive[2];
  }
  const result: Array<{ line: number; text: string }> = [];
  let current: { line: number; text: string } | undefined;
  let heredoc: string | undefined;
  for (const [index, raw] of lines.entries()) {
    if (heredoc !== undefined) {
      if (raw.replace(/^\t+/, '') === heredoc) heredoc = undefined;
      continue;
    }
    if (/^\s*#/.test(raw)) continue;
    const continued = raw.trimEnd().endsWith(escape);
    const text = continued ? raw.trimEnd().slice(0, -1) : raw;
    current = current ? { line: current.line, text: `${current.text} ${text}` } : { line: index + 1, text };
    if (continued) continue;
    if (current.text.trim() !== '') result.push(current);
    heredoc = /<<-?\s*["']?(\w+)["']?/.exec(current.text)?.[1];
    current = undefined;
  }
  if (current && current.text.trim() !== '') result.push(current);
  return result;
}
