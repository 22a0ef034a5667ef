import { egressRefusalOf, type EgressGuard } from '@platform/egress';
import { errors } from '@platform/service-kit';
import { ErrorCodes } from '../error-codes.js';

/** The longest run webhook URL accepted. */
const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * A run webhook URL as a tenant sets it (on a message or in its settings): https unless the
 * deployment allows plain http (development), and reaching public addresses only (the egress guard
 * resolves the host now; every delivery is vetted again when it connects). A refusal is
 * EGRESS_REFUSED naming the reason, never the addresses.
 */
export async function checkWebhookUrl(
  url: string,
  field: string,
  allowHttp: boolean,
  egress: EgressGuard,
): Promise<string> {
  const scheme = allowHttp ? /^https?:\/\//i : /^https:\/\//i;
  if (url.length > MAX_WEBHOOK_URL_LENGTH || !scheme.test(url)) {
    throw errors.invalidArgument(
      ErrorCodes.INVALID_WEBHOOK_URL,
      `${field}: must be an https URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters`,
      { details: { field } },
    );
  }
  try {
    await egress.checkUrl(url);
  } catch (err) {
    const refused = egressRefusalOf(err);
    if (!refused) throw err;
    throw errors.invalidArgument(ErrorCodes.EGRESS_REFUSED, `${field}: ${refused.message}`, {
      details: { field, reason: refused.reason },
    });
  }
  return url;
}
