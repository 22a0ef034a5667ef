import type { Logger } from '@platform/service-kit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TokenVerifier } from './auth.js';
import { HttpError, toHttpError } from './http-errors.js';
import { registerConversationRoutes, type ConversationRoutesOptions } from './routes/conversations.js';
import { registerHealthRoutes, type HealthRoutesOptions } from './routes/health.js';
import { registerRunRoutes } from './routes/runs.js';
import { registerToolRoutes } from './routes/tools.js';

export interface AppOptions {
  logger: Logger;
  verifier: TokenVerifier;
  maxBodyBytes: number;
  conversations: ConversationRoutesOptions;
  health: HealthRoutesOptions;
}

const PUBLIC_ROUTES = new Set(['/healthz', '/readyz']);

/** The HTTP edge: JSON errors with stable codes, JWT auth on every /v1 route, and the routes. */
export function buildApp(options: AppOptions): FastifyInstance {
  // pino's Logger and Fastify's logger type differ only in generics; the instance is the same logger.
  const app: FastifyInstance = Fastify({ loggerInstance: options.logger as unknown as FastifyBaseLogger, bodyLimit: options.maxBodyBytes, disableRequestLogging: false, return503OnClosing: true });

  app.setErrorHandler((error, request, reply) => {
    const mapped = toHttpError(error);
    if (mapped.internal) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: mapped.body.error.code, status: mapped.status }, 'request rejected');
    if (mapped.retryAfterSeconds !== undefined) void reply.header('retry-after', String(mapped.retryAfterSeconds));
    void reply.code(mapped.status).send(mapped.body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ error: { code: 'NOT_FOUND', message: `no route for ${request.method} ${request.url.split('?')[0]}` } });
  });

  app.addHook('onRequest', async (request) => {
    if (PUBLIC_ROUTES.has(request.routeOptions.url ?? '')) return;
    if (!request.routeOptions.url) return; // unknown route: the 404 handler answers
    request.principal = await options.verifier.verify(request.headers.authorization);
  });

  registerHealthRoutes(app, options.health);
  registerConversationRoutes(app, options.conversations);
  registerRunRoutes(app, { orchestrator: options.conversations.orchestrator });
  registerToolRoutes(app, { orchestrator: options.conversations.orchestrator });
  return app;
}

export { HttpError };
