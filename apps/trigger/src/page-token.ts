import { errors } from '@platform/service-kit';
import { ErrorCodes } from './error-codes.js';

/** A keyset position (a timestamp and an id), opaque to callers. */
export interface PagePosition {
  at: Date;
  id: string;
}

export function encodePageToken(position: PagePosition): string {
  return Buffer.from(`${position.at.toISOString()}|${position.id}`, 'utf8').toString('base64url');
}

export function decodePageToken(token: string): PagePosition | undefined {
  if (!token) return undefined;
  const [iso, id] = Buffer.from(token, 'base64url').toString('utf8').split('|');
  const at = iso ? new Date(iso) : undefined;
  if (!at || Number.isNaN(at.getTime()) || !id)
    throw errors.invalidArgument(ErrorCodes.INVALID_PAGE_TOKEN, 'page_token is not one this service returned');
  return { at, id };
}
