import { ModelConnectionModel, ModelConnectionName } from '@platform/contracts';
import { EGRESS_REFUSED, egressRefusalOf, type EgressGuard } from '@platform/egress';
import { errors, type PlatformError } from '@platform/service-kit';
import { ErrorCodes } from '../error-codes.js';

/** The bounds of a model connection's fields (docs/models.md). */
const MODEL_CONNECTION_LIMITS = {
  maxBaseUrlChars: 2_048,
  maxApiKeyChars: 4_096,
  maxModels: 64,
} as const;

function invalid(field: string, message: string): PlatformError {
  return errors.invalidArgument(ErrorCodes.INVALID_MODEL_CONNECTION, `${field}: ${message}`, {
    details: { field, issues: [{ field, message }] },
  });
}

/** A connection name, or INVALID_MODEL_CONNECTION naming `name`. */
export function connectionName(value: string): string {
  const parsed = ModelConnectionName.safeParse(value);
  if (!parsed.success) throw invalid('name', parsed.error.issues[0]?.message ?? 'is not valid');
  return parsed.data;
}

/** An API key: visible ASCII only (it travels in an HTTP header), never echoed in a message. */
export function apiKey(value: string): string {
  if (value.length === 0) throw invalid('api_key', 'must not be empty');
  if (value.length > MODEL_CONNECTION_LIMITS.maxApiKeyChars)
    throw invalid('api_key', `must be at most ${MODEL_CONNECTION_LIMITS.maxApiKeyChars} characters`);
  if (!/^[\x21-\x7e]+$/.test(value)) throw invalid('api_key', 'must be visible ASCII characters without spaces');
  return value;
}

/** The models a connection serves: distinct, at most 64; kept in the order given. */
export function models(values: readonly string[]): string[] {
  if (values.length > MODEL_CONNECTION_LIMITS.maxModels)
    throw invalid('models', `must list at most ${MODEL_CONNECTION_LIMITS.maxModels} models`);
  for (const value of values)
    if (!ModelConnectionModel.safeParse(value).success) throw invalid('models', 'each model is 1-200 characters');
  if (new Set(values).size !== values.length) throw invalid('models', 'must not list a model twice');
  return [...values];
}

/**
 * The base URL, through the egress guard (the host resolved now, every address public unless the
 * operator's allowlist says otherwise; calls are vetted again when they connect). Stored exactly
 * as given: a URL the guard accepts is never rewritten. A refusal names the reason, never the URL.
 */
export async function baseUrl(value: string, egress: EgressGuard): Promise<string> {
  if (value.length === 0) throw invalid('base_url', 'must not be empty');
  if (value.length > MODEL_CONNECTION_LIMITS.maxBaseUrlChars)
    throw invalid('base_url', `must be at most ${MODEL_CONNECTION_LIMITS.maxBaseUrlChars} characters`);
  try {
    await egress.checkUrl(value);
  } catch (err) {
    const refused = egressRefusalOf(err);
    if (!refused) throw err;
    throw errors.invalidArgument(EGRESS_REFUSED, `base_url: ${refused.message}`, {
      details: { reason: refused.reason, field: 'base_url', issues: [{ field: 'base_url', message: refused.message }] },
    });
  }
  return value;
}
