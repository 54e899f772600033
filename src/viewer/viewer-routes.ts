/**
 * The viewer as a fastify plugin: the page (index.html and its assets) and the JSON API under api/ that it reads.
 * `corral view` registers it at the root of its own app, `corral serve` under /view behind its token and Host
 * checks. Every run id and file path from a client goes through RunCatalog.run / resolveInside.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CorralError } from '../core/errors.js';
import { compareRuns } from './compare-runs.js';
import { pageAsset } from './page-assets.js';
import { inlineTrialTexts, readRunFile, rolloutFiles, sessionLogOf } from './rollout-files.js';
import { RunCatalog } from './run-catalog.js';
import { parseQuery, rolloutsPage, rolloutsQuerySchema } from './rollouts-query.js';
import { liveTail } from './live-tail.js';
import { SeriesCatalog } from './series-catalog.js';

export interface ViewerOptions {
  /** The folder whose runs are shown (corral view DIR, default runs/). */
  root: string;
  /** How often the live tail looks at results.jsonl (ms). */
  tailIntervalMs?: number;
}

const STATUS_BY_CODE: Record<string, number> = { VIEW_ERR_NOT_FOUND: 404, VIEW_ERR_OUTSIDE_ROOT: 403, VIEW_ERR_BAD_QUERY: 400, VIEW_ERR_BAD_RECORD: 422 };

const runQuery = z.object({ run: z.string().min(1).max(1000) });
const rolloutQuery = runQuery.extend({ line: z.coerce.number().int().min(0) });
const fileQuery = runQuery.extend({ path: z.string().min(1).max(1000) });
const compareQuery = z.object({ a: z.string().min(1).max(1000), b: z.string().min(1).max(1000) });
const seriesQuery = z.object({ name: z.string().min(1).max(200) });

export async function viewerRoutes(app: FastifyInstance, options: ViewerOptions): Promise<void> {
  const catalog = new RunCatalog(options.root);
  const series = new SeriesCatalog(options.root);
  const openStreams = new Set<() => void>();
  app.addHook('preClose', async () => [...openStreams].forEach((end) => end()));
  app.setErrorHandler((error, _request, reply) => {
    if (CorralError.isInstance(error)) {
      return reply.code(STATUS_BY_CODE[error.code] ?? 400).send({ error: { code: error.code, message: error.message } });
    }
    throw error;
  });

  const sendAsset = (name: string) => async (_request: FastifyRequest, reply: FastifyReply) => {
    const asset = pageAsset(name);
    return reply.type(asset.type).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').send(asset.body);
  };
  // The page's relative URLs need the trailing slash (/view -> /view/).
  app.get('/', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    return path.endsWith('/') ? sendAsset('index.html')(request, reply) : reply.redirect(`${path}/`);
  });
  for (const name of ['app.js', 'viewer.css', 'uplot.css']) app.get(`/assets/${name}`, sendAsset(name));

  app.get('/api/runs', async () => ({ runs: await catalog.list() }));

  app.get('/api/run', async (request) => {
    const { run } = parseQuery(runQuery, request.query);
    const state = catalog.run(run);
    await state.refresh();
    return { id: state.id, entry: await catalog.entry(run), metadata: state.metadata(), statistics: state.stats(), bad_lines: state.badLines };
  });

  app.get('/api/rollouts', async (request) => {
    const query = parseQuery(rolloutsQuerySchema, request.query);
    const state = catalog.run(query.run);
    await state.refresh();
    return { ...rolloutsPage(state, query), bad_lines: state.badLines.count };
  });

  app.get('/api/rollout', async (request) => {
    const { run, line } = parseQuery(rolloutQuery, request.query);
    const state = catalog.run(run);
    await state.refresh();
    const record = await state.record(line);
    if (!record) throw new CorralError('VIEW_ERR_NOT_FOUND', `Run ${run} has no rollout at line ${line}`);
    const files = rolloutFiles(state, record);
    return {
      line,
      lines: state.lineCount,
      record,
      files,
      texts: await inlineTrialTexts(state, files),
      session_log: await sessionLogOf(state, record),
    };
  });

  app.get('/api/file', async (request) => {
    const { run, path } = parseQuery(fileQuery, request.query);
    const state = catalog.run(run);
    return { path, ...(await readRunFile(state, path)) };
  });

  app.get('/api/compare', async (request) => {
    const { a, b } = parseQuery(compareQuery, request.query);
    const [left, right] = [catalog.run(a), catalog.run(b)];
    await Promise.all([left.refresh(), right.refresh()]);
    return { a: await catalog.entry(a), b: await catalog.entry(b), comparison: compareRuns(left, right) };
  });

  // Series: trainers' reward curves, one point per step (series-steps.ts).
  app.get('/api/series-list', async () => ({ series: series.list() }));

  app.get('/api/series', async (request) => {
    const { name } = parseQuery(seriesQuery, request.query);
    return series.curve(name);
  });

  app.get('/api/events', async (request, reply) => {
    const { run } = parseQuery(runQuery, request.query);
    const state = catalog.run(run);
    await state.refresh();
    return liveTail(request, reply, { state, entry: () => catalog.entry(run), intervalMs: options.tailIntervalMs ?? 500, open: openStreams });
  });
}
