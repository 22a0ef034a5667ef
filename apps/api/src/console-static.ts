import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiErrorCodes } from './error-codes.js';

/** Where the console is served; its routes need no token (the API calls it makes do). */
const CONSOLE_PREFIX = '/console';

export interface ConsoleOptions {
  /** The console's built files (apps/console/dist); absent or missing: /console says how to build it. */
  dir: string | undefined;
  /** Link to a run's trace, with `{traceId}` in it (Jaeger, Tempo); empty: no link. */
  traceUrlTemplate: string;
  /** The operator role (AUTH_OPERATOR_ROLE): the console offers its tenant picker to tokens with it. */
  operatorRole: string;
}

/** Whether a route belongs to the console (served without a token). */
export function isConsoleRoute(url: string): boolean {
  return url === CONSOLE_PREFIX || url.startsWith(`${CONSOLE_PREFIX}/`);
}

// Built assets carry a content hash in their names: cache them for good. The page itself is
// revalidated each time so a new build is picked up at once.
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body><main><h1>The console is not built</h1>
<p>The api is running, but it has no console files to serve. Build them with
<code>npx nx run console:build</code> (or <code>npm run platform</code>, which builds everything),
or point <code>CONSOLE_DIR</code> at a built console, then reload this page.</p></main></body></html>
`;

/**
 * Serves the single-page console under /console: its files, `config.json` (what the console
 * needs from the api's configuration) and index.html for every other path (client routing).
 */
export function registerConsole(app: FastifyInstance, options: ConsoleOptions): void {
  const dir = options.dir ? path.resolve(options.dir) : undefined;
  const built = dir !== undefined && existsSync(path.join(dir, 'index.html'));
  void app.register(
    async (scope) => {
      scope.get('/config.json', async (_request, reply) =>
        reply
          .header('cache-control', REVALIDATE)
          .send({ traceUrlTemplate: options.traceUrlTemplate, operatorRole: options.operatorRole }),
      );
      if (!built) {
        const notBuilt = async (_request: unknown, reply: FastifyReply) =>
          reply.code(503).header('cache-control', REVALIDATE).type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
        scope.get('/', notBuilt);
        scope.get('/*', notBuilt);
        return;
      }
      await scope.register(fastifyStatic, {
        root: dir,
        wildcard: false,
        index: false,
        serve: true,
        cacheControl: false,
        setHeaders: (reply, filePath) => {
          void reply.headers({
            ...SECURITY_HEADERS,
            'cache-control': filePath.includes(`${path.sep}assets${path.sep}`) ? IMMUTABLE : REVALIDATE,
          });
        },
      });
      const page = async (_request: unknown, reply: FastifyReply) =>
        reply.headers({ ...SECURITY_HEADERS, 'cache-control': REVALIDATE }).sendFile('index.html');
      scope.get('/', page);
      scope.get('/*', async (request, reply) => {
        // A missing asset is a 404, not the page: a stale page asking for an old bundle should fail loudly.
        if (request.url.startsWith(`${CONSOLE_PREFIX}/assets/`))
          return reply
            .code(404)
            .send({ error: { code: ApiErrorCodes.NOT_FOUND, message: `no console asset ${request.url}` } });
        return page(request, reply);
      });
    },
    { prefix: CONSOLE_PREFIX },
  );
}
