/**
 * Every top-level command by name, with its help line, and how to load it. `corral --help` and `--version` read only
 * this list, so a start-up never imports a command's dependencies (fastify, dockerode, the MCP SDK, zod schemas);
 * `corral <name>` imports that one command's module when it runs. test/unit/cli/command-catalog.test.ts registers
 * every real command and fails when a name, usage term or description here drifts from it.
 */
import type { Command } from 'commander';

export interface CatalogCommand {
  /** The word on the command line. */
  name: string;
  /** The help line's left column, as commander derives it from the real command (e.g. `mcp [options] <env>`). */
  term: string;
  /** The real command's description (its help line's right column). */
  description: string;
  /** Imports the command's module and returns its register function. */
  load(): Promise<(program: Command) => void>;
}

/** In the order `corral --help` lists them. */
export const COMMAND_CATALOG: readonly CatalogCommand[] = [
  {
    name: 'doctor',
    term: 'doctor [options]',
    description: 'report which sandbox backends work on this machine, and why not',
    load: async () => (await import('./commands/doctor.js')).registerDoctorCommand,
  },
  {
    name: 'images',
    term: 'images',
    description: 'sandbox images',
    load: async () => (await import('./commands/images.js')).registerImagesCommand,
  },
  {
    name: 'cleanup',
    term: 'cleanup [options]',
    description: 'remove corral sandboxes (containers, processes) left behind by dead owners or past expiry',
    load: async () => (await import('./commands/cleanup.js')).registerCleanupCommand,
  },
  {
    name: 'bench',
    term: 'bench [arguments...]',
    description: 'run a benchmark (from a checkout): sandbox | mcp | search | runner | terminal | agents | environments | view | queue | cli [--json]',
    load: async () => (await import('./commands/bench.js')).registerBenchCommand,
  },
  {
    name: 'serve',
    term: 'serve [options]',
    description: 'serve the tool environments as MCP servers (Streamable HTTP and WebSocket) backed by pooled sandboxes',
    load: async () => (await import('./commands/serve.js')).registerServeCommand,
  },
  {
    name: 'mcp',
    term: 'mcp [options] <env>',
    description: 'serve one environment over stdio as an MCP server: a toolset (wiki, python, js, all), a built-in or installed environment, or a module file',
    load: async () => (await import('./commands/mcp-stdio.js')).registerMcpCommand,
  },
  {
    name: 'eval',
    term: 'eval [options] [env]',
    description: 'run an agent on an environment and write scored trajectories (results.jsonl + metadata.json)',
    load: async () => (await import('./commands/eval.js')).registerEvalCommand,
  },
  {
    name: 'rescore',
    term: 'rescore [options] <run-dir>',
    description: "score a run's saved trajectories again with an environment's parser and rubric, into a new run (judge variance with --repeats)",
    load: async () => (await import('./commands/rescore.js')).registerRescoreCommand,
  },
  {
    name: 'replay',
    term: 'replay [options] <run-dir>',
    description: "continue a run's saved trajectories from turn K with another agent or model, into a new run (recorded or live tools)",
    load: async () => (await import('./commands/replay.js')).registerReplayCommand,
  },
  {
    name: 'env',
    term: 'env',
    description: 'install, list and inspect environments (npm packages in corral’s cache, and the built-ins)',
    load: async () => (await import('./commands/env.js')).registerEnvCommand,
  },
  {
    name: 'tasks',
    term: 'tasks',
    description: 'Harbor and Terminal-Bench v1 task folders',
    load: async () => (await import('./commands/tasks.js')).registerTasksCommand,
  },
  {
    name: 'view',
    term: 'view [options] [dir]',
    description: 'browse runs in a local web page: runs, rollouts, comparisons, live runs (default DIR: runs/)',
    load: async () => (await import('./commands/view.js')).registerViewCommand,
  },
  {
    name: 'wiki',
    term: 'wiki',
    description: 'wiki search corpora: build the disk index that serves millions of pages',
    load: async () => (await import('./commands/wiki.js')).registerWikiCommand,
  },
  {
    name: 'export',
    term: 'export',
    description: "write a run's trajectories in other formats",
    load: async () => (await import('./commands/export.js')).registerExportCommand,
  },
  {
    name: 'agents',
    term: 'agents',
    description: 'CLI coding agents (OpenCode, Codex, Claude Code, Gemini CLI, Qwen Code) run inside sandboxes',
    load: async () => (await import('./commands/agents.js')).registerAgentsCommand,
  },
  {
    name: 'worker',
    term: 'worker [options]',
    description: "join a pool of rollout workers on Redis: run queued rollouts (corral eval --queue, corral serve --queue) with this machine's sandboxes",
    load: async () => (await import('./commands/worker.js')).registerWorkerCommand,
  },
  {
    name: 'queue',
    term: 'queue',
    description: 'the rollout queue on Redis (corral worker, corral eval --queue)',
    load: async () => (await import('./commands/queue.js')).registerQueueCommand,
  },
];
