import { createHash } from 'node:crypto';
import { errors } from '@platform/service-kit';
import { ErrorCodes } from '../error-codes.js';

/**
 * Where a conversation listing stopped: the last conversation's activity time in microseconds
 * since the epoch (as text: Postgres keeps microseconds, which a JS Date would round off) and its id.
 */
export interface ConversationPagePosition {
  activityMicros: string;
  conversationId: string;
}

interface TokenBody {
  v: 1;
  t: string;
  /** A digest of the listing's filters and reader: a token continues only the listing it came from. */
  f: string;
  a: string;
  c: string;
}

const MICROS = /^-?\d{1,19}$/;

function digest(text: string): string {
  return createHash('sha256').update(`conversation-page-token:${text}`).digest('base64url').slice(0, 22);
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

/**
 * An opaque token for the page after `position`, with a checksum (an altered or cut token is
 * refused rather than read as another position). It needs no secret: a listing is scoped by the
 * caller's tenant and reach, so a forged position only moves within what the caller may see.
 */
export function encodeConversationPageToken(
  tenantId: string,
  filtersKey: string,
  position: ConversationPagePosition,
): string {
  const body: TokenBody = {
    v: 1,
    t: tenantId,
    f: digest(filtersKey),
    a: position.activityMicros,
    c: position.conversationId,
  };
  const payload = Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
  return `${payload}.${digest(payload)}`;
}

/** The position a token stands for; undefined for the first page (no token). */
export function decodeConversationPageToken(
  token: string,
  tenantId: string,
  filtersKey: string,
): ConversationPagePosition | undefined {
  if (!token) return undefined;
  const [payload, check, extra] = token.split('.');
  if (!payload || !check || extra !== undefined || digest(payload) !== check)
    throw refused('is not one ListConversations returned (altered or cut)');
  let body: Partial<TokenBody>;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<TokenBody>;
  } catch {
    throw refused('is not one ListConversations returned');
  }
  if (body.v !== 1 || typeof body.a !== 'string' || !MICROS.test(body.a) || typeof body.c !== 'string' || !body.c)
    throw refused('is not one ListConversations returned');
  if (body.t !== tenantId) throw refused('belongs to another tenant');
  if (body.f !== digest(filtersKey)) throw refused('belongs to a listing with other filters');
  return { activityMicros: body.a, conversationId: body.c };
}
