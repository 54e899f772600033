/**
 * `corral serve --queue <redis-url>`: POST /v1/rollouts checks the request here (environment, examples, endpoint
 * policy) as always, then runs its rollouts through the queued executor on `corral worker` processes; the run
 * driver streams each group back as it completes, as it does for a local run. The model endpoint is the client's
 * choice, so jobs carry api_key 'none' (no worker key is ever sent to it) and the server's endpoint policy for the
 * worker to apply again; a request with its own api_key is refused under --queue, because the key would sit in
 * Redis in clear. Episodes (/v1/episodes) are interactive and hold one sandbox across calls, so they keep running in
 * this process (see README, "Workers on two machines").
 */
import { randomUUID } from 'node:crypto';
import { CorralError } from '../../core/errors.js';
import type { RolloutService } from '../../http/rollouts-contract.js';
import { openQueuedExecutor } from '../../queue/queued-executor.js';
import { TOKEN_FIELDS } from '../../runner/agents/openai/openai-agent.js';
import type { RolloutExecutor } from '../../runner/run/rollout-executor.js';
import type { QueuedRolloutsInput } from '../runtime/rollout-service.js';

const isLoopbackHost = (host: string) => host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);

export function queuedRollouts(options: {
  redisUrl: URL;
  server: { host: string; modelEndpointAllowlist?: readonly string[] };
  log: (line: string) => void;
}): (input: QueuedRolloutsInput) => Promise<RolloutExecutor> {
  const guard = { refuse_internal: !isLoopbackHost(options.server.host), allow: [...(options.server.modelEndpointAllowlist ?? [])] };
  return ({ environment, request, plannedRollouts }) =>
    openQueuedExecutor({
      redisUrl: options.redisUrl,
      runId: randomUUID().replace(/-/g, ''),
      plannedRollouts,
      job: {
        environment: { name: environment.name, source: environment.name, args: request.env_args ?? {}, corpus: null, max_turns: request.max_turns ?? null },
        agent: {
          name: 'openai',
          model: request.model.model,
          base_url: request.model.base_url,
          // return_tokens travels as the sampling fields it stands for (the worker's agent sends them as given).
          sampling_args: request.return_tokens ? { ...TOKEN_FIELDS, ...request.sampling_args } : (request.sampling_args ?? {}),
          model_timeout_s: (request.model.timeout_ms ?? 600_000) / 1000,
          model_retries: request.model.max_retries ?? 4,
          api_key: 'none',
          endpoint_guard: guard,
        },
        seed: request.seed ?? null,
        needs: { backend: 'any' },
        // Workers check it too, so no job starts past the deadline in the moment before the producer removes the rest.
        ...(request.deadline === undefined ? {} : { deadline: request.deadline }),
      },
      log: options.log,
    });
}

/** Under --queue a request's own api_key would be stored in Redis in clear: refused (400) before anything runs. */
export function refusingClientKeys(service: RolloutService): RolloutService {
  return {
    prepare(request, context) {
      if (request.model.api_key !== undefined && request.model.api_key !== 'EMPTY')
        throw new CorralError(
          'QUEUE_ERR_UNSUPPORTED',
          'model.api_key: this server runs rollouts on queue workers (corral serve --queue) and does not put API keys in the queue; use an endpoint that needs no key, or a server without --queue',
          { details: { field: 'model.api_key' } },
        );
      // Queue jobs carry sampling args, not the agent's mode: token-in runs here only.
      if (request.token_in)
        throw new CorralError(
          'QUEUE_ERR_UNSUPPORTED',
          'token_in: this server runs rollouts on queue workers (corral serve --queue), which do not run token-in mode yet; use a server without --queue',
          {
            details: { field: 'token_in' },
          },
        );
      return service.prepare(request, context);
    },
  };
}
