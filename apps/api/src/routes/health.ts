import type { GrpcHealthProbe } from '@platform/service-kit';
import { z } from 'zod';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';

export interface HealthRoutesOptions {
  /** gRPC dependencies whose health decides readiness, by display name. */
  dependencies: Record<string, { probe: GrpcHealthProbe; service: string }>;
  probeTimeoutMs: number;
  /** False once shutdown starts, so load balancers stop sending traffic. */
  isAccepting: () => boolean;
}

const Readiness = z.object({
  status: z.enum(['ready', 'not ready']),
  checks: z
    .record(z.string(), z.enum(['ok', 'unavailable', 'shutting down']))
    .meta({ description: 'Each dependency, and the api itself.' }),
});

export const healthOperations = {
  liveness: defineOperation({
    method: 'GET',
    path: '/healthz',
    operationId: 'getLiveness',
    summary: 'The process is alive',
    tags: ['meta'],
    access: 'public',
    responses: {
      200: {
        description: 'Alive.',
        body: z.object({ status: z.literal('ok') }),
        examples: { alive: { status: 'ok' } },
      },
    },
  }),
  readiness: defineOperation({
    method: 'GET',
    path: '/readyz',
    operationId: 'getReadiness',
    summary: 'The api and every dependency can serve',
    tags: ['meta'],
    access: 'public',
    responses: {
      200: {
        description: 'Ready.',
        body: Readiness,
        examples: {
          ready: { status: 'ready', checks: { orchestrator: 'ok', memory: 'ok', agentPool: 'ok', api: 'ok' } },
        },
      },
      503: { description: 'Not ready: a dependency is unavailable or the api is shutting down.', body: Readiness },
    },
  }),
};

/** `/healthz`: the process is alive. `/readyz`: it and every dependency can serve. */
export function registerHealthRoutes(router: OperationRouter, options: HealthRoutesOptions): void {
  router.add(healthOperations.liveness, async () => ({ status: 200, body: { status: 'ok' } }));

  router.add(healthOperations.readiness, async () => {
    const names = Object.keys(options.dependencies);
    const results = await Promise.all(
      names.map((name) =>
        options.dependencies[name]!.probe.isServing(options.dependencies[name]!.service, options.probeTimeoutMs),
      ),
    );
    const checks = Object.fromEntries(
      names.map((name, i) => [name, results[i] ? ('ok' as const) : ('unavailable' as const)]),
    );
    const ready = options.isAccepting() && results.every(Boolean);
    const body = {
      status: ready ? ('ready' as const) : ('not ready' as const),
      checks: { ...checks, api: options.isAccepting() ? ('ok' as const) : ('shutting down' as const) },
    };
    return ready ? { status: 200, body } : { status: 503, body };
  });
}
