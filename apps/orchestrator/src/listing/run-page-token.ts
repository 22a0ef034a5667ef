import { createHash } from 'node:crypto';
import { errors } from '@platform/service-kit';
import type { RunListFilters } from './run-list-query.js';
import { ErrorCodes } from '../error-codes.js';

/**
 * Where a listing stopped: the last run's creation time in microseconds since the epoch (as text:
 * Postgres keeps microseconds, which a JS Date would round off, and the keyset must be exact) and
 * its id.
 */
export interface RunPagePosition {
  createdMicros: string;
  runId: string;
}

interface TokenBody {
  v: 1;
  /** The tenant the listing is for. */
  t: string;
  /** A digest of the listing's filters: a token continues only the listing it came from. */
  f: string;
  c: string;
  r: string;
}

const VERSION = 1;
const MICROS = /^-?\d{1,19}$/;

function digest(text: string): string {
  return createHash('sha256').update(`run-page-token:${text}`).digest('base64url').slice(0, 22);
}

/** The filters in a fixed order (statuses sorted by run-list-query), so equal filters digest alike. */
function filtersDigest(filters: RunListFilters): string {
  return digest(
    JSON.stringify([
      filters.conversationId ?? null,
      filters.statuses ?? null,
      filters.stopReason ?? null,
      filters.toolName ?? null,
      filters.source ?? null,
      filters.createdAfter?.toISOString() ?? null,
      filters.createdBefore?.toISOString() ?? null,
      filters.parentRunId ?? null,
      // Only when set, so the tokens of listings from before this filter existed still read.
      ...(filters.protocol ? [filters.protocol] : []),
    ]),
  );
}

/**
 * An opaque token for the page after `position`. It carries a checksum, so a token that was
 * altered or cut is refused rather than read as another position; it does not hide its content
 * and needs no secret: every listing is scoped by the caller's tenant, so a forged position can
 * only move within the caller's own runs.
 */
export function encodeRunPageToken(tenantId: string, filters: RunListFilters, position: RunPagePosition): string {
  const body: TokenBody = {
    v: VERSION,
    t: tenantId,
    f: filtersDigest(filters),
    c: position.createdMicros,
    r: position.runId,
  };
  const payload = Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
  return `${payload}.${digest(payload)}`;
}

function refused(message: string): Error {
  return errors.invalidArgument(
    ErrorCodes.INVALID_PAGE_TOKEN,
    `page_token ${message}; start the listing again without it`,
    {
      details: { field: 'page_token' },
    },
  );
}

function bodyOf(token: string): TokenBody {
  const [payload, check, extra] = token.split('.');
  if (!payload || !check || extra !== undefined || digest(payload) !== check)
    throw refused('is not one ListRuns returned (altered or cut)');
  let body: Partial<TokenBody>;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<TokenBody>;
  } catch {
    throw refused('is not one ListRuns returned');
  }
  if (
    body.v !== VERSION ||
    typeof body.t !== 'string' ||
    typeof body.f !== 'string' ||
    typeof body.c !== 'string' ||
    !MICROS.test(body.c) ||
    typeof body.r !== 'string' ||
    !body.r
  ) {
    throw refused('is not one ListRuns returned');
  }
  return body as TokenBody;
}

/** The position a token stands for; undefined for the first page (no token). */
export function decodeRunPageToken(
  token: string,
  tenantId: string,
  filters: RunListFilters,
): RunPagePosition | undefined {
  if (!token) return undefined;
  const body = bodyOf(token);
  if (body.t !== tenantId) throw refused('belongs to another tenant');
  if (body.f !== filtersDigest(filters)) throw refused('belongs to a listing with other filters');
  return { createdMicros: body.c, runId: body.r };
}
