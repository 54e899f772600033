import type { FastifyInstance } from 'fastify';

/** /metrics in the Prometheus text format. */
export async function metricsRoute(app: FastifyInstance): Promise<void> {
  app.get('/metrics', async (_request, reply) => {
    const registry = app.corral.metrics.registry;
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
