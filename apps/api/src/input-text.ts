import { findUnstorableText, type UnstorableText } from '@platform/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './http-errors.js';
import { ApiErrorCodes } from './error-codes.js';

/**
 * The one check every string a client sends passes, in the path, the query and the body alike:
 * text that cannot be stored or sent back exactly as written is refused before any handler runs
 * (docs/api.md, "Input that cannot be stored faithfully").
 *
 * - percent-encoding in the URL that does not decode to UTF-8 (`%zz`, `%FF`, `%ED%A0%80`):
 *   `400 INVALID_URL`. Fastify would refuse it in a path and keep it verbatim in a query.
 * - NUL (U+0000) or an unpaired UTF-16 surrogate in a path parameter, a query parameter, a body
 *   string or a body key: `400 INVALID_CONTENT`, naming where (`path.subject`, `query.tool`,
 *   `$.name`) and the index.
 *
 * Body bytes that are not UTF-8 are refused before this, by the body parser (json-body.ts).
 */
export function registerInputTextCheck(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    refuseBadQueryEncoding(request);
    const found =
      findUnstorableText(request.params, 'path') ??
      findUnstorableText(request.query, 'query') ??
      (request.body === undefined ? undefined : findUnstorableText(request.body));
    if (found) throw unstorable(found);
  });
}

function unstorable(found: UnstorableText): HttpError {
  const what = found.character === 'nul' ? 'the NUL character (U+0000)' : 'an unpaired UTF-16 surrogate';
  return new HttpError(
    400,
    ApiErrorCodes.INVALID_CONTENT,
    `${found.path} holds ${what} at index ${found.index}, which cannot be stored as text; send well-formed Unicode without NUL`,
    {
      path: found.path,
      index: found.index,
      character: found.character,
    },
  );
}

/** The query's parser keeps a bad escape as it was written: such a query would silently mean something else. */
function refuseBadQueryEncoding(request: FastifyRequest): void {
  const at = request.url.indexOf('?');
  if (at < 0) return;
  for (const pair of request.url.slice(at + 1).split('&')) {
    try {
      decodeURIComponent(pair);
    } catch {
      throw new HttpError(
        400,
        ApiErrorCodes.INVALID_URL,
        'the query is not valid percent-encoded UTF-8; encode each parameter with encodeURIComponent',
        { part: 'query' },
      );
    }
  }
}
