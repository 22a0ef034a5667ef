import { isPlatformError } from '@platform/service-kit';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';

/**
 * A page of agents or versions. The api has checked every field of the request but the page
 * token, so the agent service's INVALID_ARGUMENT, whatever its code, is about that token.
 */
export async function pageOf<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (isPlatformError(error) && error.kind === 'invalid_argument')
      throw new HttpError(400, ApiErrorCodes.INVALID_PAGE_TOKEN, 'pageToken is not one this api gave', {
        field: 'pageToken',
      });
    throw error;
  }
}
