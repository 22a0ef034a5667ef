import { findIllFormedText, firstInvalidUtf8Offset } from '@platform/contracts';
import type { FastifyInstance } from 'fastify';
import { HttpError } from './http-errors.js';

/**
 * JSON bodies are read strictly, for every route: bytes that are not UTF-8 are refused with
 * `INVALID_UTF8` (the byte offset named), and a string or key holding an unpaired surrogate (an
 * escape such as `"\ud800"`) with `INVALID_CONTENT` (its JSON path and index named). Decoding
 * leniently would store and send U+FFFD in place of what the client wrote. Parsing itself stays
 * Fastify's (prototype-poisoning protection included).
 */
export function registerStrictJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    const offset = firstInvalidUtf8Offset(bytes);
    if (offset >= 0) {
      done(new HttpError(400, 'INVALID_UTF8', `the request body is not valid UTF-8 (byte ${offset}); send text encoded as UTF-8`, { byteOffset: offset }), undefined);
      return;
    }
    void parseJson(request, bytes.toString('utf8'), (err, parsed) => {
      if (err) return done(err, undefined);
      const bad = findIllFormedText(parsed);
      if (bad) {
        const message = `${bad.path} holds an unpaired UTF-16 surrogate at index ${bad.index}, which cannot be stored as text; send well-formed Unicode`;
        return done(new HttpError(400, 'INVALID_CONTENT', message, { path: bad.path, index: bad.index }), undefined);
      }
      done(null, parsed);
    });
  });
}
