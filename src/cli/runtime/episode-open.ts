/**
 * One open episode of the episode API: an environment rollout opened in this process, its conversation, its MCP
 * endpoint made on demand, and what a fork needs to open children like it (environment, example, tools, sandbox
 * source). POST /v1/episodes opens one fresh; POST /v1/episodes/<id>/fork opens each child from a checkpoint.
 */
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { EpisodeDescription } from '../../http/episodes-contract.js';
import type { SandboxSource } from '../../mcp/sandbox-source.js';
import type { Environment, Example } from '../../runner/contract/environment.js';
import type { ToolDefinition } from '../../tools/tool-definition.js';
import type { EpisodeConversation } from './episode-conversation.js';
import type { StoredEpisode } from './episode-store.js';
import type { InProcessEnvironmentRollout } from './environment-rollouts.js';

export interface OpenEpisode extends StoredEpisode {
  readonly rollout: InProcessEnvironmentRollout;
  readonly description: Omit<EpisodeDescription, 'expiresAtMs'>;
  /** The episode's MCP endpoint, made on its first request (most trainers call tools with plain JSON). */
  mcp: McpHttpHandler | undefined;
  /** The conversation the trainer steps (step API); unused by trainers that call tools and score themselves. */
  readonly conversation: EpisodeConversation;
  /** Scored through POST .../score (a stepped episode is scored by the step that ends it). */
  scored: boolean;
  /** Set when release begins, so a call still running on the episode's sandbox learns why it failed. */
  released: boolean;
  /** What a fork opens each child with: the same environment (arguments bound), example, tools and sandbox spec. */
  readonly origin: {
    readonly environment: Environment;
    readonly example: Example;
    readonly toolsetTools: readonly ToolDefinition[];
    readonly sandboxSource: SandboxSource;
  };
}

export interface OpenEpisodeParts {
  id: string;
  principal: string;
  rollout: InProcessEnvironmentRollout;
  description: Omit<EpisodeDescription, 'expiresAtMs'>;
  /** The episode's conversation, made for this episode's id and rollout. */
  conversation: EpisodeConversation;
  origin: OpenEpisode['origin'];
  log?: (details: Record<string, unknown>, message: string) => void;
}

export function assembleOpenEpisode(parts: OpenEpisodeParts): OpenEpisode {
  const { rollout } = parts;
  const episode: OpenEpisode = {
    id: parts.id,
    principal: parts.principal,
    rollout,
    conversation: parts.conversation,
    scored: false,
    released: false,
    description: parts.description,
    origin: parts.origin,
    mcp: undefined,
    idleFor: (idleMs) => rollout.sandboxes.idleFor(idleMs),
    dispose: async () => {
      episode.released = true;
      await episode.mcp?.close().catch(() => undefined);
      const failure = await rollout.close();
      if (failure) parts.log?.({ err: failure, episode: parts.id }, 'episode cleanup failed');
    },
  };
  return episode;
}
