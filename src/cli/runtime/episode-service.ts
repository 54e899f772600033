/**
 * The episode API's composition (docs/episodes-api.md): an episode is one EnvironmentRollout opened exactly as
 * `corral eval` opens one (cli/runtime/environment-rollouts.ts: a fresh state, lazily leased sandboxes, the
 * environment's toolsets and its own tools bound to that state), except that the trainer runs the agent loop: it
 * gets the prompt and tools, calls tools (plain JSON or the episode's MCP endpoint, both on the same sandbox and
 * state), sends its completion to be scored by the environment's rubric, and deletes the episode (cleanup hook).
 */
import { createMcpHandler } from '@modelcontextprotocol/server';
import { CorralError, ERROR_CODES, type ErrorCode } from '../../core/errors.js';
import type {
  CreateEpisodeBody,
  EpisodeDescription,
  EpisodeScore,
  EpisodeService,
  EpisodeToolOutcome,
  FunctionToolSpec,
} from '../../http/episodes-contract.js';
import { assembleToolServer } from '../../mcp/tool-server-assembly.js';
import { toolsForToolsets } from '../../mcp/toolsets.js';
import { agentPromptMessages } from '../../runner/agents/prompt-messages.js';
import type { Environment, Example } from '../../runner/contract/environment.js';
import { buildSamples } from '../../runner/samples/build-samples.js';
import type { ChatMessage } from '../../runner/trajectory/messages.js';
import { DatasetLookup } from './dataset-lookup.js';
import { EpisodeConversation, throwAsRubricFailure } from './episode-conversation.js';
import { openEnvironmentRollout } from './environment-rollouts.js';
import { forkEpisode } from './episode-fork.js';
import { type OpenEpisode, assembleOpenEpisode } from './episode-open.js';
import { EpisodeStore } from './episode-store.js';
import { exampleSandboxSource } from './example-sandbox-source.js';
import type { ServedEnvironments } from './served-environments.js';
import type { ToolRuntime } from './tool-runtime.js';

export interface EpisodeServiceOptions {
  runtime: Pick<ToolRuntime, 'pool' | 'specs' | 'wiki'>;
  environments: ServedEnvironments;
  /** Where environments read their datasets (config.data.dataDir). */
  dataDir: string | undefined;
  /** config.server: episodeIdleTtlMs and bodyLimitBytes (the MCP endpoint's request cap). */
  server: { episodeIdleTtlMs: number; bodyLimitBytes: number };
  log?: (details: Record<string, unknown>, message: string) => void;
}

export function createEpisodeService(options: EpisodeServiceOptions): EpisodeService {
  const ttlMs = options.server.episodeIdleTtlMs;
  const store = new EpisodeStore<OpenEpisode>(ttlMs);
  const datasets = new DatasetLookup(options.dataDir);
  const describe = (episode: OpenEpisode): EpisodeDescription => ({ ...episode.description, expiresAtMs: episode.rollout.sandboxes.expiresAtMs(ttlMs) });

  async function exampleFor(environment: Environment, body: CreateEpisodeBody): Promise<{ example: Example; trusted: boolean }> {
    if (body.example) return { example: body.example as Example, trusted: false };
    return { example: await datasets.find(environment, body.example_id!), trusted: true };
  }

  return {
    async create(body, { principal, abortSignal }) {
      const environment = await options.environments.bind(body.env, body.env_args).catch(asFieldError('env_args'));
      if (environment.toolsets.includes('wiki') && !options.runtime.wiki)
        throw fieldError('env', `${environment.name} needs the wiki tools, and this server loaded no wiki corpus (start corral serve with --corpus PATH)`);
      const { example, trusted } = await exampleFor(environment, body);
      // A client's inline example cannot choose images or network: only the operator's datasets can.
      const source = exampleSandboxSource(options.runtime, environment, example, { trustExample: trusted });
      const toolsetTools = toolsForToolsets(environment.toolsets, { wiki: options.runtime.wiki });
      const rollout = await openEnvironmentRollout({ environment, example, toolsetTools, sandboxSource: source, abortSignal });
      try {
        await rollout.runSetup({ abortSignal });
      } catch (error) {
        await rollout.close();
        throw error;
      }
      const id = EpisodeStore.newId();
      const prompt = agentPromptMessages(environment.systemPrompt, example);
      const episode = assembleOpenEpisode({
        id,
        principal,
        rollout,
        conversation: new EpisodeConversation(id, environment, rollout, prompt),
        description: { id, env: environment.name, exampleId: example.id, prompt, tools: rollout.tools.tools.map(functionSpecOf) },
        origin: { environment, example, toolsetTools, sandboxSource: source },
        ...(options.log ? { log: options.log } : {}),
      });
      try {
        store.add(episode);
      } catch (error) {
        await episode.dispose();
        throw error;
      }
      return describe(episode);
    },

    describe: (id, principal) => describe(store.get(id, principal)),

    async callTool(id, name, args, { principal, abortSignal }): Promise<EpisodeToolOutcome> {
      const episode = store.get(id, principal);
      const { rollout } = episode;
      if (!rollout.tools.tools.some((tool) => tool.name === name)) {
        const available = rollout.tools.tools.map((tool) => tool.name);
        throw new CorralError('EPISODE_ERR_UNKNOWN_TOOL', `episode ${id} has no tool '${name}'; its tools: ${available.join(', ')}`, {
          details: { available },
        });
      }
      try {
        return await rollout.tools.call(name, args, { abortSignal });
      } catch (error) {
        throw episode.released ? releasedDuring(id, error) : withCorralCode(error);
      }
    },

    async handleMcp(id, request, principal) {
      const episode = store.get(id, principal);
      episode.rollout.sandboxes.touch();
      // Stateless: a server per request, each over the episode's sandboxes and bound to its state.
      episode.mcp ??= createMcpHandler(
        () =>
          assembleToolServer({
            tools: episode.rollout.toolDefinitions,
            scopeFor: () => episode.rollout.scope,
            sandboxes: { shared: episode.rollout.sandboxes },
          }).server,
        { legacy: 'stateless', maxRequestBodySize: options.server.bodyLimitBytes },
      );
      return episode.mcp.fetch(request);
    },

    async step(id, body, { principal, abortSignal }) {
      const episode = store.get(id, principal);
      if (episode.scored) throw new CorralError('EPISODE_ERR_ALREADY_SCORED', `episode ${id} was scored through /score; create a new episode to step`);
      const endCall = episode.rollout.sandboxes.beginCall();
      try {
        return await episode.conversation.step(body, { abortSignal });
      } catch (error) {
        throw episode.released ? releasedDuring(id, error) : withCorralCode(error);
      } finally {
        endCall();
      }
    },

    conversation: (id, principal) => store.get(id, principal).conversation.state(),

    async fork(id, body, { principal, abortSignal }) {
      const parent = store.get(id, principal);
      if (parent.scored) throw new CorralError('EPISODE_ERR_ALREADY_SCORED', `episode ${id} was scored through /score; there is no turn left to fork from`);
      const turn = parent.conversation.state().turns;
      let children: Awaited<ReturnType<typeof forkEpisode>>;
      try {
        children = await forkEpisode(parent, { count: body.n, abortSignal, ...(options.log ? { log: options.log } : {}) });
      } catch (error) {
        throw parent.released ? releasedDuring(id, error) : error;
      }
      const added: OpenEpisode[] = [];
      try {
        for (const child of children) added.push((store.add(child), child));
      } catch (error) {
        // The server began shutting down: none of the children is handed out.
        await Promise.all(children.map((child) => (added.includes(child) ? store.remove(child.id, principal) : child.dispose())));
        throw error;
      }
      return { turn, episodes: children.map(describe) };
    },

    record(id, principal) {
      const episode = store.get(id, principal);
      const record = episode.conversation.record(episode.origin.example);
      // The one sample builder, as POST /v1/rollouts with samples: true: a fork's children share their prefix's ids.
      const built = buildSamples(record);
      return { ...record, samples: built.samples, samples_missing: built.missing };
    },

    async score(id, body, { principal, abortSignal }): Promise<EpisodeScore> {
      const episode = store.get(id, principal);
      if (episode.conversation.stepped)
        throw new CorralError('EPISODE_ERR_STEPPED', `episode ${id} is driven by step: its reward comes with the step that ends it`, { details: { id } });
      if (episode.scored) throw new CorralError('EPISODE_ERR_ALREADY_SCORED', `episode ${id} was already scored; create a new episode to score again`);
      episode.scored = true;
      const endCall = episode.rollout.sandboxes.beginCall();
      try {
        const scored = await episode.rollout.score({ completion: body.completion as string | ChatMessage[] }, { abortSignal }).catch(throwAsRubricFailure);
        return { reward: scored.reward, metrics: scored.metrics, answer: scored.answer };
      } catch (error) {
        throw episode.released ? releasedDuring(id, error) : withCorralCode(error);
      } finally {
        endCall();
      }
    },

    release: (id, principal) => store.remove(id, principal),
    countOwnedBy: (principal) => store.countOwnedBy(principal),
    close: () => store.close(),
  };
}

const functionSpecOf = (tool: { name: string; description: string; inputSchema: Record<string, unknown> }): FunctionToolSpec => ({
  type: 'function',
  function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
});

/** Infrastructure faults reach the episode's MCP client as JSON-RPC errors carrying the corral code; the route needs the CorralError back. */
function withCorralCode(error: unknown): unknown {
  const data = (error as { data?: { corralCode?: unknown } } | null)?.data;
  const code = typeof data?.corralCode === 'string' ? data.corralCode : undefined;
  if (!code || !Object.hasOwn(ERROR_CODES, code)) return error;
  const message = (error as Error).message.replace(/^MCP error -?\d+: /, '').replace(`${code}: `, '');
  return new CorralError(code as ErrorCode, message, { cause: error });
}

/** Whatever a call on a released episode's tools threw (a closed MCP pair, a destroyed sandbox) means one thing. */
const releasedDuring = (id: string, cause: unknown) =>
  new CorralError('EPISODE_ERR_CLOSED', `episode ${id} was released (deleted or shut down) while this call ran; its sandbox and state are gone`, {
    cause,
    details: { id },
  });

const fieldError = (field: string, message: string) => new CorralError('CFG_ERR_INVALID', `${field}: ${message}`, { details: { field } });

/** ENV_ERR_INVALID_ARGS names the request field it came from; other errors pass unchanged. */
const asFieldError =
  (field: string) =>
  (error: unknown): never => {
    if (CorralError.hasCode(error, 'ENV_ERR_INVALID_ARGS'))
      throw new CorralError('ENV_ERR_INVALID_ARGS', error.message, { details: { ...error.details, field } });
    throw error;
  };
