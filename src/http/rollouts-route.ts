/**
 * POST /v1/rollouts: a trainer (any language, any machine) asks for rollouts of a built-in environment against
 * its own model endpoint and reads them back as NDJSON, one result record a line as each example's group
 * finishes, then one summary line. The route holds no runner logic: it validates, streams, and cancels. A
 * client that disconnects cancels its rollouts (their sandboxes are released); so does closing the server. A request
 * with `record: {series, step}` also leaves its records in the series' run folder (rollout-series.ts). A request with
 * `deadline` or `max_staleness` has its unfinished rollouts cancelled once they can no longer make it, each reported
 * on a `cancelled` line (rollouts-expiry.ts; the step clocks and their endpoint are rollouts-policy-steps.ts).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { z } from 'zod';
import { CorralError } from '../core/errors.js';
import { RolloutSeries, seriesWriteError } from './rollout-series.js';
import {
  type PreparedRollouts,
  type RolloutExpiry,
  type RolloutRequest,
  type RolloutRunStats,
  type RolloutService,
  rolloutRequestSchema,
} from './rollouts-contract.js';
import { requestExpiry } from './rollouts-expiry.js';
import { DEFAULT_POLICY, PolicyStepClocks, policyStepRoutes } from './rollouts-policy-steps.js';

export interface RolloutsRouteOptions {
  service: RolloutService;
  /** The server's runs folder, where series are kept (series/<name>/); omitted, requests naming a series are refused. */
  seriesRoot?: string;
}

interface RunningRequest {
  controller: AbortController;
  finished: Promise<unknown>;
}

export async function rolloutsRoute(app: FastifyInstance, options: RolloutsRouteOptions): Promise<void> {
  const running = new Set<RunningRequest>();
  const series = options.seriesRoot === undefined ? undefined : new RolloutSeries(options.seriesRoot);
  const clocks = new PolicyStepClocks();
  policyStepRoutes(app, clocks);
  // Streams are hijacked, so the server cannot finish closing while one is open: cancel them, and wait until
  // their sandboxes are back before the CLI closes the pool.
  app.addHook('preClose', async () => {
    for (const request of running) request.controller.abort(new CorralError('RUNNER_ERR_CANCELLED', 'the server is shutting down'));
    await Promise.allSettled([...running].map((request) => request.finished));
  });

  app.post('/v1/rollouts', async (request, reply) => {
    const parsed = rolloutRequestSchema.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send(invalidRequestBody(parsed.error));
    const record = parsed.data.record;
    if (record && !series) {
      const message = 'record: this server keeps no runs folder, so it cannot record a series';
      return reply.code(400).send({ error: { code: 'SERIES_ERR_UNAVAILABLE', message, field: 'record' } });
    }
    // Before any rollout runs: a series folder that cannot be written fails now, not after minutes of rollouts.
    if (record && series) {
      try {
        await series.open(record.series);
      } catch (error) {
        request.log.error({ err: error }, 'cannot open the series folder');
        const message = `cannot write series '${record.series}' (the server's log says why)`;
        return reply.code(500).send({ error: { code: 'SERIES_ERR_WRITE', message } });
      }
    }
    const principal = app.corral.resolvePrincipal(request.headers, request.ip);
    const releaseQuota = app.corral.quotas.take('maxRolloutRequestsPerPrincipal', principal);
    // A request generated for step n says the trainer has reached it: older requests of the same policy may now be stale.
    if (parsed.data.policy_step !== undefined) clocks.advance(principal, parsed.data.policy ?? DEFAULT_POLICY, parsed.data.policy_step);
    const expiry = requestExpiry(parsed.data, clocks, principal);
    const controller = new AbortController();
    // 'close' before the response finished means the client went away (or the socket broke).
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) controller.abort(new CorralError('RUNNER_ERR_CANCELLED', 'the client closed the rollout request'));
    });
    let finish!: () => void;
    const entry: RunningRequest = { controller, finished: new Promise<void>((resolve) => (finish = resolve)) };
    running.add(entry);
    try {
      let prepared: PreparedRollouts;
      try {
        prepared = await options.service.prepare(parsed.data, { abortSignal: controller.signal, log: request.log });
      } catch (error) {
        if (CorralError.isInstance(error) && error.audience === 'caller') return reply.code(400).send(callerErrorBody(error));
        throw error;
      }
      // Cancelled while preparing: the client is gone, or the server is closing (then 503 tells it why).
      if (controller.signal.aborted) return reply.code(503).send({ error: { code: 'RUNNER_ERR_CANCELLED', message: errorMessage(controller.signal.reason) } });
      await streamRollouts(reply, prepared, parsed.data, { abortSignal: controller.signal, expiry, series });
      return reply;
    } finally {
      expiry?.dispose();
      running.delete(entry);
      releaseQuota();
      finish();
    }
  });
}

async function streamRollouts(
  reply: FastifyReply,
  prepared: PreparedRollouts,
  request: RolloutRequest,
  { abortSignal, expiry, series }: { abortSignal: AbortSignal; expiry: RolloutExpiry | undefined; series: RolloutSeries | undefined },
): Promise<void> {
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  // Headers now, so the client knows the request was accepted before the first group (maybe minutes away).
  response.flushHeaders();
  // Lines queue in the socket's buffer when the client reads slowly; a run is bounded, so memory is too.
  const writeLine = (value: unknown) => {
    if (!response.destroyed) response.write(`${JSON.stringify(value)}\n`);
  };
  const startedAt = Date.now();
  const kept: Record<string, unknown>[] = [];
  let streamed = 0;
  let cancelled = 0;
  let stats: RolloutRunStats | undefined;
  let failure: { code: string; message: string } | undefined;
  try {
    stats = await prepared.run({
      abortSignal,
      onGroup: (records) => {
        for (const record of records) writeLine(record);
        if (request.record) kept.push(...records);
        streamed += records.length;
      },
      // Its own line type, before the example's records, so a trainer can drop the example as they arrive.
      onQuarantine: (quarantine) => writeLine({ type: 'quarantine', ...quarantine }),
      ...(expiry
        ? {
            expiry,
            // After the run, once per rollout that could not make it: never a record, never in statistics or samples.
            onCancelled: (rollouts) => {
              const details = { reason: expiry.check(), ...expiry.details() };
              for (const rollout of rollouts) writeLine({ type: 'cancelled', ...details, ...rollout });
              cancelled += rollouts.length;
            },
          }
        : {}),
    });
  } catch (error) {
    reply.log.error({ err: error }, 'rollout run failed');
    failure = { code: CorralError.isInstance(error) ? error.code : 'RUNNER_ERR_UNEXPECTED', message: errorMessage(error) };
  }
  const expected = prepared.numExamples * prepared.rolloutsPerExample;
  const status = failure ? 'failed' : abortSignal.aborted || cancelled > 0 ? 'cancelled' : streamed === expected ? 'complete' : 'incomplete';
  const seriesLine =
    request.record && series ? await recordSeries(reply, series, { ...request.record, prepared, status, startedAt, records: kept }) : undefined;
  writeLine({
    type: 'summary',
    status,
    env_id: prepared.env,
    model: prepared.model,
    num_examples: prepared.numExamples,
    rollouts_per_example: prepared.rolloutsPerExample,
    seed: request.seed ?? null,
    rollouts: stats?.rollouts ?? streamed,
    errored: stats?.errored ?? null,
    avg_reward: stats?.avg_reward ?? null,
    ...Object.fromEntries(Object.entries(stats?.metric_averages ?? {}).map(([name, value]) => [`avg_${name}`, value])),
    errors_by_code: stats?.errors_by_code ?? {},
    ...(stats?.samples ? { samples: stats.samples } : {}),
    ...(stats?.canaries ? { canaries: stats.canaries } : {}),
    ...(cancelled > 0 ? { cancelled: { reason: expiry!.check(), rollouts: cancelled } } : {}),
    time_ms: Date.now() - startedAt,
    ...(seriesLine ? { series: seriesLine } : {}),
    ...(failure ? { error: failure } : {}),
  });
  response.end();
}

/** The summary's `series` field: where the records went, or why they could not be kept (they were streamed anyway). */
async function recordSeries(
  reply: FastifyReply,
  series: RolloutSeries,
  input: { series: string; step: number; prepared: PreparedRollouts; status: string; startedAt: number; records: Record<string, unknown>[] },
): Promise<Record<string, unknown>> {
  const { series: name, step, prepared } = input;
  try {
    const kept = await series.append({
      series: name,
      step,
      env: prepared.env,
      model: prepared.model,
      status: input.status,
      startedAt: new Date(input.startedAt),
      finishedAt: new Date(),
      records: input.records,
    });
    return { name, step, ...kept };
  } catch (error) {
    reply.log.error({ err: seriesWriteError(name, error) }, 'cannot append to the series');
    return { name, step, error: { code: 'SERIES_ERR_WRITE', message: `cannot write series '${name}' (the server's log says why)` } };
  }
}

/** 400 naming the first offending field, e.g. "model.base_url: Invalid URL" (the episode routes answer the same way). */
export function invalidRequestBody(error: z.ZodError) {
  const issues = error.issues.map((issue) => {
    // A strict object reports unknown keys at the object's own path: name the key itself.
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
    return { field: path.map(String).join('.') || '(body)', message: issue.message };
  });
  const first = issues[0]!;
  return { error: { code: 'INVALID_REQUEST', message: `${first.field}: ${first.message}`, field: first.field, issues } };
}

export function callerErrorBody(error: CorralError) {
  const { field, ...details } = error.details;
  return { error: { code: error.code, message: error.message, ...(typeof field === 'string' ? { field } : {}), ...details } };
}

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));
