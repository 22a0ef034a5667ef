import { firstInvalidUtf8Offset } from '@platform/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './http-errors.js';
import { ApiErrorCodes } from './error-codes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads a JSON body; a route without one ignores what is sent (an empty body declared as JSON included). */
    hasBody?: boolean;
  }
}

/** Each request's JSON body as it was written, for checks the parsed value cannot answer (jsonBodyText). */
const bodyTexts = new WeakMap<FastifyRequest, string>();

/**
 * The request's JSON body as the client wrote it: JSON.parse has already rounded a number it cannot
 * hold (an integer past 2^53, 1e400), so a route that must refuse those reads them here.
 */
export function jsonBodyText(request: FastifyRequest): string | undefined {
  return bodyTexts.get(request);
}

/**
 * JSON bodies are read strictly, for every route: bytes that are not UTF-8 are refused with
 * `INVALID_UTF8` (the byte offset named); decoding leniently would store and send U+FFFD in place
 * of what the client wrote. Unstorable characters in the parsed strings (NUL, unpaired surrogates
 * written as escapes) are refused afterwards with the path and query (input-text.ts). A route
 * without a body ignores one sent as `application/json`, an empty one included (what many
 * clients send on DELETE or a bodiless POST). Parsing itself stays Fastify's (prototype-poisoning
 * protection included).
 */
export function registerStrictJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (request.routeOptions.config.hasBody !== true) {
      done(null, undefined);
      return;
    }
    const offset = firstInvalidUtf8Offset(bytes);
    if (offset >= 0) {
      done(
        new HttpError(
          400,
          ApiErrorCodes.INVALID_UTF8,
          `the request body is not valid UTF-8 (byte ${offset}); send text encoded as UTF-8`,
          { byteOffset: offset },
        ),
        undefined,
      );
      return;
    }
    const text = bytes.toString('utf8');
    bodyTexts.set(request, text);
    void parseJson(request, text, done);
  });
}
