import type { FastifyInstance } from 'fastify';

/** /healthz: liveness plus the environments this server offers (readiness is /readyz). Exempt from the bearer token (load balancers probe it). */
export async function healthRoute(app: FastifyInstance): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok', environments: app.corral.host.environmentNames(), ...app.corral.host.stats() }));
}
