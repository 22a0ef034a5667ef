import type { GrpcHealthProbe } from '@platform/service-kit';
import type { FastifyInstance } from 'fastify';

export interface HealthRoutesOptions {
  /** gRPC dependencies whose health decides readiness, by display name. */
  dependencies: Record<string, { probe: GrpcHealthProbe; service: string }>;
  probeTimeoutMs: number;
  /** False once shutdown starts, so load balancers stop sending traffic. */
  isAccepting: () => boolean;
}

/** `/healthz`: the process is alive. `/readyz`: it and every dependency can serve. */
export function registerHealthRoutes(app: FastifyInstance, options: HealthRoutesOptions): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const names = Object.keys(options.dependencies);
    const results = await Promise.all(names.map((name) => options.dependencies[name]!.probe.isServing(options.dependencies[name]!.service, options.probeTimeoutMs)));
    const checks = Object.fromEntries(names.map((name, i) => [name, results[i] ? 'ok' : 'unavailable']));
    const ready = options.isAccepting() && results.every(Boolean);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks: { ...checks, api: options.isAccepting() ? 'ok' : 'shutting down' } });
  });
}
