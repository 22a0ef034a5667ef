import { generateCredentialKeys } from '@platform/testing';

const keys = generateCredentialKeys();

/**
 * Stand-ins for the values of Secrets (which are not part of the manifests), by variable name, so a
 * container's environment can be parsed by its app's schema exactly as at boot. A variable read from
 * a Secret with no sample here fails the test: add one shaped like the real value.
 */
export const SAMPLE_SECRET_VALUES: Record<string, string> = {
  DATABASE_URL: 'postgres://service:password@postgres.example.internal:5432/platform?sslmode=require',
  DATABASE_MIGRATION_URL: 'postgres://owner:password@postgres.example.internal:5432/platform?sslmode=require',
  REDIS_URL: 'rediss://:password@redis.example.internal:6380/0',
  OPENAI_API_KEY: 'sk-sample',
  AUTH_JWT_SECRET: 'a-sample-hs256-secret-of-at-least-32-chars',
  CREDENTIAL_PLATFORM_TOKEN: keys.platformToken,
  CREDENTIAL_PLATFORM_TOKENS: keys.platformToken,
  CREDENTIAL_GRANT_PUBLIC_KEYS: keys.grantPublicKeys,
  CREDENTIAL_GRANT_SIGNING_KEY: keys.grantSigningKey,
  CREDENTIAL_KEYRING: keys.keyring,
  NATS_USER: 'service',
  NATS_PASSWORD: 'password',
};
