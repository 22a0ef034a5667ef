import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';

/** An agent's ETag: its revision in quotes (RFC 9110 strong validator). */
function etagOf(revision: number): string {
  return `"${revision}"`;
}

/** Sets the `ETag` header of an answer that returns an agent. */
export function withEtag(reply: FastifyReply, revision: number): void {
  void reply.header('etag', etagOf(revision));
}

/** The revision an `If-Match` names: `"<revision>"` as the api sends it (a bare number is taken too). */
const QUOTED_REVISION = /^\s*"?([1-9][0-9]{0,15})"?\s*$/;

/**
 * The revision in the request's `If-Match`, or `undefined` without one. Anything but one of our
 * ETags (a list, `*`, a weak tag) is refused: a write must name the one revision it read.
 */
export function ifMatchOf(request: FastifyRequest): number | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) return undefined;
  const match = QUOTED_REVISION.exec(Array.isArray(header) ? header.join(',') : header);
  if (!match)
    throw new HttpError(
      400,
      ApiErrorCodes.INVALID_IF_MATCH,
      'If-Match must be the ETag of the agent as read ("<revision>")',
      {
        field: 'If-Match',
      },
    );
  return Number(match[1]);
}

/** The revision in `If-Match`, which this write requires (428 without it). */
export function requiredIfMatchOf(request: FastifyRequest): number {
  const revision = ifMatchOf(request);
  if (revision === undefined)
    throw new HttpError(
      428,
      ApiErrorCodes.PRECONDITION_REQUIRED,
      'send If-Match with the ETag of the agent you read (GET /v1/agents/{agent}), so a write cannot overwrite one you have not seen',
      { field: 'If-Match' },
    );
  return revision;
}

/** The documented `If-Match` request header. */
export const IfMatchHeader = (required: boolean) =>
  z.object({
    'If-Match': (required ? z.string() : z.string().optional()).meta({
      description: required
        ? 'The ETag of the agent as read (`"<revision>"`): required; a stale one is 412 STALE_REVISION, none 428 PRECONDITION_REQUIRED.'
        : 'The ETag of the agent as read (`"<revision>"`): when sent, a stale one is 412 STALE_REVISION.',
      example: '"3"',
    }),
  });

/** The documented `ETag` response header of answers that return an agent. */
export const EtagHeader = z.object({
  ETag: z.string().meta({ description: "The agent's revision, for `If-Match` on the next write.", example: '"3"' }),
});
