import { invalidApiKey, type SimError } from './openai-errors.js';

/** The token of an `Authorization: Bearer <token>` header, or undefined when there is none. */
export function bearerToken(header: string | undefined): string | undefined {
  const token = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim();
  return token ? token : undefined;
}

/**
 * Checks a request's Authorization header: a bearer token is always required (like the real
 * API); when `expectedKey` is set the token must equal it. Returns the error to send, if any.
 */
export function checkAuthorization(header: string | undefined, expectedKey: string | undefined): SimError | undefined {
  const token = bearerToken(header);
  if (token === undefined) return invalidApiKey(undefined);
  if (expectedKey !== undefined && token !== expectedKey) return invalidApiKey(token);
  return undefined;
}
