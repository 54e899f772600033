/**
 * Peers for the sandbox benchmark: what the obvious alternatives cost on this host, measured through the
 * docker CLI exactly as a user would type them (CLI start-up is part of what they pay).
 */
import { CorralError } from '../../core/errors.js';
import { runCommand } from './run-command.js';

export interface CommandTiming {
  /** Wall time in ms, including the docker CLI's own start-up. */
  wallMs: number;
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

async function timeDocker(args: string[]): Promise<CommandTiming> {
  const startedAt = performance.now();
  const result = await runCommand('docker', args, { timeoutMs: 120_000 }).catch((error: unknown) => {
    throw new CorralError('SBX_ERR_UNAVAILABLE', 'cannot run the docker CLI (is it installed and on PATH?)', { cause: error });
  });
  return { wallMs: performance.now() - startedAt, exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

/**
 * `docker run --rm <image> true`: a cold container per call, the naive way to isolate each command.
 * `networkNone` adds `--network none`, matching corral's default sandboxes (a bridge costs extra).
 */
export function timeColdDockerRun(image: string, options: { networkNone?: boolean } = {}): Promise<CommandTiming> {
  return timeDocker(['run', '--rm', ...(options.networkNone ? ['--network', 'none'] : []), image, 'true']);
}

/** `docker exec <container> <cmd…>`: one exec per call into a running container. */
export function timeDockerExec(containerId: string, command: readonly string[]): Promise<CommandTiming> {
  return timeDocker(['exec', containerId, ...command]);
}
