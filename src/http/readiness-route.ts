/**
 * /readyz: readiness, as opposed to /healthz (liveness). 200 when the sandbox backend can create sandboxes,
 * 503 when it cannot (Docker daemon gone, image removed, bwrap missing), so a load balancer stops sending
 * work to a server whose every tool call would fail. Body: {backend, ready, reason?}. Exempt from the bearer
 * token like /healthz.
 */
import type { FastifyInstance } from 'fastify';

export interface Readiness {
  /** The backend probed ('docker', 'process'), or 'unknown' when the server was built without a probe. */
  backend: string;
  ready: boolean;
  /** Why not, in words an operator can act on; absent when ready. */
  reason?: string;
}

/** Asks the backend; may be slow (a daemon round trip), never expected to throw. */
export type ReadinessProbe = () => Promise<Readiness>;

/** Probes that answer within this reuse one result: many balancers probing at once cost one daemon call. */
const RESULT_REUSE_MS = 1_000;
const PROBE_TIMEOUT_MS = 5_000;

export async function readinessRoute(app: FastifyInstance, options: { probe?: ReadinessProbe }): Promise<void> {
  const probe = options.probe ?? (async () => ({ backend: 'unknown', ready: true }));
  let latest: { promise: Promise<Readiness>; settledAtMs?: number } | undefined;
  const current = (): Promise<Readiness> => {
    const fresh = latest && (latest.settledAtMs === undefined || Date.now() - latest.settledAtMs < RESULT_REUSE_MS);
    if (fresh && latest) return latest.promise;
    const entry: { promise: Promise<Readiness>; settledAtMs?: number } = { promise: boundedProbe(probe) };
    void entry.promise.finally(() => (entry.settledAtMs = Date.now()));
    latest = entry;
    return entry.promise;
  };
  app.get('/readyz', async (_request, reply) => {
    const readiness = await current();
    return reply.code(readiness.ready ? 200 : 503).send(readiness);
  });
}

async function boundedProbe(probe: ReadinessProbe): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Readiness>((resolve) => {
    timer = setTimeout(
      () => resolve({ backend: 'unknown', ready: false, reason: `the readiness probe did not answer within ${PROBE_TIMEOUT_MS} ms` }),
      PROBE_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([
      probe().catch((error: Error) => ({ backend: 'unknown', ready: false, reason: `the readiness probe failed: ${error.message}` })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
