import { codesOf, SharedErrorCodes, type ErrorCodeSpec } from '@platform/service-kit';

/**
 * Every error code this service raises besides service-kit's shared ones (`SharedErrorCodes`),
 * with the kind it is raised with and what it means.
 */
const credentialErrorCatalogue = {
  CREDENTIAL_NOT_FOUND: { kind: 'not_found', description: 'No credential for this tenant, service and account.' },
  VERSION_CONFLICT: {
    kind: 'failed_precondition',
    description: 'The credential is not at `expected_version` (another write came first); read it and retry.',
  },
  INVALID_SERVICE: { kind: 'invalid_argument', description: '`service` is not a valid service name.' },
  INVALID_ACCOUNT: { kind: 'invalid_argument', description: '`account` is not a valid account name.' },
  SECRET_TOO_LARGE: {
    kind: 'payload_too_large',
    description: '`secret_json` is larger than CREDENTIAL_MAX_SECRET_BYTES.',
  },
  INVALID_SECRET: { kind: 'invalid_argument', description: '`secret_json` is not UTF-8, not JSON, or not an object.' },
  INVALID_EXPECTED_VERSION: { kind: 'invalid_argument', description: '`expected_version` is negative.' },
  INVALID_BEFORE_ID: { kind: 'invalid_argument', description: '`before_id` is negative.' },
  INVALID_KEY_NAME: {
    kind: 'invalid_argument',
    description: 'An API key `name` is not 1-64 letters, digits, ".", "_", " " or "-".',
  },
  INVALID_KEY_ROLE: {
    kind: 'invalid_argument',
    description: 'An API key `role` is not viewer, member, developer or admin.',
  },
  INVALID_KEY_EXPIRY: { kind: 'invalid_argument', description: "An API key's `expires_at` is not in the future." },
  INVALID_KEY_ID: { kind: 'invalid_argument', description: '`key_id` is not 16 lower-case hex digits.' },
  INVALID_ADMIN_ACTION: {
    kind: 'invalid_argument',
    description:
      'A recorded administrative action lacks its operation, method, status or role, or a field is too long.',
  },
  API_KEY_NOT_FOUND: { kind: 'not_found', description: 'No API key with this id for this tenant.' },
  INVALID_API_KEY: {
    kind: 'unauthenticated',
    description: 'The presented API key is malformed, unknown, or its secret is wrong (the answer does not say which).',
  },
  API_KEY_REVOKED: { kind: 'unauthenticated', description: 'The presented API key was revoked.' },
  API_KEY_EXPIRED: { kind: 'unauthenticated', description: 'The presented API key has expired.' },
  GRANT_EXPIRED: { kind: 'unauthenticated', description: 'The credential grant has expired.' },
  GRANT_INVALID: {
    kind: 'unauthenticated',
    description: 'The credential grant does not verify, or lacks required claims.',
  },
  CALLER_UNAUTHENTICATED: {
    kind: 'unauthenticated',
    description: 'The call carries neither a credential grant nor a platform token.',
  },
  GRANT_TENANT_MISMATCH: { kind: 'permission_denied', description: 'The credential grant is for another tenant.' },
  GRANT_CALL_MISMATCH: { kind: 'permission_denied', description: 'The credential grant is for another tool call.' },
  SERVICE_NOT_GRANTED: { kind: 'permission_denied', description: 'The tool call was not granted this service.' },
  GRANT_NOT_ALLOWED: {
    kind: 'permission_denied',
    description: 'The method is for platform callers; a credential grant cannot call it.',
  },
  CREDENTIAL_DECRYPT_FAILED: {
    kind: 'internal',
    description: 'A stored credential failed authentication: it was altered or moved.',
  },
  KEY_UNAVAILABLE: { kind: 'internal', description: 'A record is wrapped by a key-encryption key the keyring lacks.' },
  KEY_MISSING_FROM_KEYRING: {
    kind: 'internal',
    description: 'Key rotation: a stored record names a key-encryption key that is not in the keyring.',
  },
  MODEL_CONNECTION_NOT_FOUND: { kind: 'not_found', description: 'No model connection of this name for this tenant.' },
  MODEL_CONNECTION_EXISTS: { kind: 'already_exists', description: 'The tenant has a model connection of this name.' },
  INVALID_MODEL_CONNECTION: {
    kind: 'invalid_argument',
    description: 'A model connection field is not valid (`details.field` names it: name, base_url, api_key, models).',
  },
  NOT_PERMITTED_BY_TIER: {
    kind: 'permission_denied',
    description:
      "The tenant's tier does not allow this (`details.what`; for model connections a `modelConnections` limit of 0).",
  },
  EGRESS_REFUSED: {
    kind: 'invalid_argument',
    description: 'A model connection base URL reaches inside the platform or is not http(s) (`details.reason`).',
  },
  KEYRING_INVALID: {
    kind: 'internal',
    description: "The keyring's own configuration is unusable (bad JSON, wrong key length, no active key).",
  },
} as const satisfies Record<string, ErrorCodeSpec>;

/** Codes by name, the shared ones included: throw sites write `ErrorCodes.TASK_NOT_FOUND`. */
export const ErrorCodes = { ...SharedErrorCodes, ...codesOf(credentialErrorCatalogue) };
