/**
 * `corral eval <task folder> --queue <redis-url>`: a terminal run whose trials run on `corral worker --env <task
 * folder>` processes (Docker workers). Each job names the task folder by its absolute path, which workers must see
 * at the same path (a shared file system, as Harbor users run workers), and carries the run's terminal settings as
 * its env args. The producer writes results.jsonl and metadata.json as for every queued run; each trial's Harbor
 * folder stays on the worker that ran it (worker-trials.ts).
 */
import { basename } from 'node:path';
import type { RolloutJobTemplate } from '../../queue/queued-executor.js';
import type { TerminalTask } from '../../terminal/terminal-task.js';
import type { TrialAgent } from '../../terminal/trial/trial-agent.js';
import { taskExample } from '../../terminal/trial/trial-executor.js';
import type { EvalOptions } from './eval-options.js';
import { openRunQueue, workerJobAgent } from './queued-evaluation.js';
import type { RunCommand } from './run-command.js';
import type { TerminalEvaluation, TerminalSettings } from './terminal-run.js';

/** The name jobs of a task folder are queued under (the worker serving that folder takes them): `terminal-<folder name>`. */
export const taskFolderEnvironmentName = (folder: string) => `terminal-${basename(folder)}`;

/** A queued trial's env args: the terminal settings the worker's trials run with. */
export function terminalJobArgs(settings: TerminalSettings): Record<string, unknown> {
  return { timeout_multiplier: settings.timeout_multiplier, forbid_egress: settings.forbid_egress, base_image_map: settings.base_image_map };
}

export async function queuedTerminalEvaluation(input: {
  command: RunCommand;
  settings: TerminalSettings;
  directory: string;
  previous: Record<string, unknown> | null;
  tasks: readonly TerminalTask[];
  agent: TrialAgent;
  metadata: Record<string, unknown>;
  startedAt: number;
  options: EvalOptions & { queue: string };
  log: (line: string) => void;
}): Promise<TerminalEvaluation> {
  const { command, settings, tasks, agent, options } = input;
  const plannedRollouts = tasks.length * command.rollouts_per_example;
  const job: RolloutJobTemplate = {
    environment: {
      name: taskFolderEnvironmentName(settings.tasks),
      source: settings.tasks,
      args: terminalJobArgs(settings),
      corpus: null,
      max_turns: command.max_turns,
    },
    agent: workerJobAgent(command, options, command.base_url),
    seed: command.seed,
    needs: { backend: 'docker' },
  };
  const queue = await openRunQueue({ previous: input.previous, options, job, plannedRollouts, log: input.log });
  return {
    execution: {
      executor: queue.executor,
      pacedByWorkers: true,
      metadata: input.metadata,
      extraMetadata: queue.extraMetadata,
      describe: `terminal: ${tasks.length} tasks x ${command.rollouts_per_example} trials, agent ${agent.name} (${agent.model}), on workers serving ${settings.tasks} through the queue at ${queue.where}`,
      cancelling: `removing this run's waiting jobs; trials already running finish on the workers and --resume ${input.directory} collects them`,
      close: async () => undefined,
    },
    directory: input.directory,
    examples: tasks.map(taskExample),
    rolloutsPerExample: command.rollouts_per_example,
    plannedRollouts,
    startedAt: input.startedAt,
  };
}
