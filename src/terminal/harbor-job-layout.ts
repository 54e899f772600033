/**
 * Writes Harbor's job layout beside results.jsonl, so Harbor users' tools read a corral run:
 *
 *   <job>/result.json              JobResult: id, started_at, updated_at, finished_at, n_total_trials, stats
 *   <job>/config.json              a minimal JobConfig (job_name, n_attempts, timeout_multiplier, agents)
 *   <job>/<trial>/result.json      TrialResult (harbor-trial-result.ts)
 *   <job>/<trial>/config.json      TrialConfig
 *   <job>/<trial>/agent/           agent logs, trajectory.json
 *   <job>/<trial>/verifier/        test-stdout.txt, test-stderr.txt, reward.txt / reward.json
 *   <job>/<trial>/artifacts/       collected artifacts
 *   <job>/<trial>/exception.txt    the exception message, when the trial errored
 *
 * Incremental: writeHarborTrial when a trial finishes; writeHarborJobLayout at the start and at the end (and as
 * often as wanted between). The job result.json is recomputed from every <trial>/result.json on disk, so a resumed
 * run counts the trials of its earlier attempts. Every JSON file is replaced atomically (write, then rename).
 */
import { createHash, randomUUID } from 'node:crypto';
import { cp, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, isAbsolute, join, normalize, relative, sep } from 'node:path';
import { CorralError } from '../core/errors.js';
import { ensureHostFolder } from './host-folder.js';
import type { HarborFileSource, HarborJobInput, HarborTrialInput, HarborTrialWritten } from './harbor-job-input.js';
import { type HarborJobStatsJson, harborJobStats } from './harbor-job-stats.js';
import { type HarborTrialResultJson, harborTrialResult, instantString } from './harbor-trial-result.js';

export type { HarborFileSource, HarborJobInput, HarborTrialInput, HarborTrialWritten } from './harbor-job-input.js';

export interface HarborJobResultJson {
  id: string;
  started_at: string;
  updated_at: string;
  finished_at: string | null;
  n_total_trials: number;
  stats: HarborJobStatsJson;
}

/** ShortUUID's alphabet (no 0, 1, I, O, l), as Harbor's trial names use. */
const SHORT_ID_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Harbor's trial name: the task's last name segment cut to 32 characters, `__`, 7 random characters. */
export function harborTrialName(taskName: string): string {
  const stem = (taskName.split('/').pop() ?? 'task')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .slice(0, 32)
    .replace(/[_-]+$/, '');
  const bytes = new Uint8Array(7);
  crypto.getRandomValues(bytes);
  const suffix = Array.from(bytes, (byte) => SHORT_ID_ALPHABET[byte % SHORT_ID_ALPHABET.length]).join('');
  return `${stem || 'task'}__${suffix}`;
}

/** Writes one finished trial's folder and result.json. Returns where, and which declared sources were missing. */
export async function writeHarborTrial(jobDirectory: string, trial: HarborTrialInput): Promise<HarborTrialWritten> {
  assertPathSegment(trial.trialName, 'trialName');
  const trialDirectory = join(jobDirectory, trial.trialName);
  const folders = { agent: join(trialDirectory, 'agent'), verifier: join(trialDirectory, 'verifier'), artifacts: join(trialDirectory, 'artifacts') };
  // Never through a link: a trial folder holds only what the host put there (collection keeps no links).
  for (const folder of [trialDirectory, ...Object.values(folders)]) await ensureHostFolder(folder);
  const missingSources: string[] = [];
  const move = trial.moveFiles ?? false;
  for (const [folder, sources] of [
    [folders.agent, trial.agentFiles],
    [folders.verifier, trial.verifierFiles],
    [folders.artifacts, trial.artifactFiles],
  ] as const) {
    for (const source of sources ?? []) if (!(await bringIn(source, folder, move))) missingSources.push(typeof source === 'string' ? source : source.path);
  }
  if (trial.verifierStdout !== undefined) await writeFile(join(folders.verifier, 'test-stdout.txt'), trial.verifierStdout);
  if (trial.verifierStderr !== undefined) await writeFile(join(folders.verifier, 'test-stderr.txt'), trial.verifierStderr);
  if (trial.exception)
    await writeFile(join(trialDirectory, 'exception.txt'), `${trial.exception.type}: ${trial.exception.message}\n${trial.exception.traceback ?? ''}`);
  const taskChecksum = trial.taskChecksum ?? (await taskFolderChecksum(trial.taskDirectory));
  const result = harborTrialResult(trial, { trialDirectory, jobDirectory, taskChecksum });
  await writeJsonAtomically(join(trialDirectory, 'config.json'), result.config);
  const resultPath = join(trialDirectory, 'result.json');
  await writeJsonAtomically(resultPath, result);
  return { trialDirectory, resultPath, missingSources };
}

/**
 * Writes (or rewrites) the job's result.json and config.json, with stats over every trial folder already written.
 * Returns the JobResult written; pass its id back on later rewrites (or set job.id) to keep the job's identity.
 */
export async function writeHarborJobLayout(jobDirectory: string, job: HarborJobInput): Promise<HarborJobResultJson> {
  await mkdir(jobDirectory, { recursive: true });
  const previous = await readJson<Partial<HarborJobResultJson>>(join(jobDirectory, 'result.json'));
  const trials = await readTrialResults(jobDirectory);
  const result: HarborJobResultJson = {
    id: job.id ?? (typeof previous?.id === 'string' ? previous.id : randomUUID()),
    started_at: instantString(job.startedAt),
    updated_at: new Date().toISOString(),
    finished_at: job.finishedAt === null ? null : instantString(job.finishedAt),
    n_total_trials: job.nTotalTrials,
    stats: harborJobStats(trials, { nTotalTrials: job.nTotalTrials, nRunningTrials: job.nRunningTrials, nRetries: job.nRetries }),
  };
  await writeJsonAtomically(join(jobDirectory, 'config.json'), {
    job_name: job.jobName ?? basename(jobDirectory),
    jobs_dir: join(jobDirectory, '..'),
    n_attempts: job.config?.nAttempts ?? 1,
    timeout_multiplier: job.config?.timeoutMultiplier ?? 1,
    n_concurrent_trials: job.config?.nConcurrentTrials ?? 1,
    agents: (job.config?.agents ?? []).map((agent) => ({ name: agent.name, model_name: agent.modelName ?? null })),
  });
  await writeJsonAtomically(join(jobDirectory, 'result.json'), result);
  return result;
}

/** Every <job>/<trial>/result.json that parses as a trial result, in folder-name order. */
export async function readTrialResults(jobDirectory: string): Promise<HarborTrialResultJson[]> {
  const entries = await readdir(jobDirectory, { withFileTypes: true }).catch(() => []);
  const trials: HarborTrialResultJson[] = [];
  for (const entry of entries.filter((candidate) => candidate.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const trial = await readJson<HarborTrialResultJson>(join(jobDirectory, entry.name, 'result.json'));
    if (trial && typeof trial.trial_name === 'string' && trial.agent_info) trials.push(trial);
  }
  return trials;
}

/** sha256 over the task folder's files (relative path and bytes, sorted), standing in for Harbor's dirhash. */
export async function taskFolderChecksum(taskDirectory: string): Promise<string> {
  const hash = createHash('sha256');
  const entries = await readdir(taskDirectory, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = entries.filter((entry) => entry.isFile()).map((entry) => relative(taskDirectory, join(entry.parentPath, entry.name)));
  for (const file of files.sort()) {
    hash.update(`${file}\n`);
    hash.update(await readFile(join(taskDirectory, file)));
  }
  return hash.digest('hex');
}

/** Copies (or moves) one source into a folder; false when the source does not exist. */
async function bringIn(source: HarborFileSource, folder: string, move: boolean): Promise<boolean> {
  const path = typeof source === 'string' ? source : source.path;
  const name = typeof source === 'string' ? basename(path) : (source.as ?? basename(path));
  assertRelativeInside(name);
  const exists = await stat(path).then(
    () => true,
    () => false,
  );
  if (!exists) return false;
  const target = join(folder, name);
  await mkdir(join(target, '..'), { recursive: true });
  if (move) {
    try {
      await rename(path, target);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    }
  }
  // verbatimSymlinks: a symlink the agent planted is copied as a link, never followed out of the trial's files.
  await cp(path, target, { recursive: true, force: true, verbatimSymlinks: true });
  if (move) await rm(path, { recursive: true, force: true });
  return true;
}

function assertPathSegment(name: string, field: string): void {
  if (!name || name === '.' || name === '..' || name.includes('/') || name.includes('\\') || name.includes('\0'))
    throw new CorralError('TASK_ERR_RESULT_INVALID', `${field} must be one path segment (no / or ..), got ${JSON.stringify(name)}`, { details: { field } });
}

function assertRelativeInside(name: string): void {
  const normalized = normalize(name);
  if (!name || isAbsolute(name) || normalized === '..' || normalized.startsWith(`..${sep}`) || name.includes('\0'))
    throw new CorralError('TASK_ERR_RESULT_INVALID', `a file's target name must stay inside its trial folder, got ${JSON.stringify(name)}`, {
      details: { field: 'as' },
    });
}

async function readJson<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

async function writeJsonAtomically(path: string, value: unknown): Promise<void> {
  // A unique temporary name: trials finishing together may rewrite the job's result.json at the same time.
  const temporary = `${path}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`;
  await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`);
  await rename(temporary, path);
}
