import { readFileSync } from 'node:fs';
import { credsAuthenticator, type Authenticator } from '@nats-io/nats-core';
import { natsInboxPrefix } from '@platform/contracts';
import { z } from 'zod';
import { ConfigError } from './config.js';

/**
 * The NATS settings every service shares, spread into its config schema
 * (`z.object({ ...natsEnv, ... })`). Authentication is optional: set NATS_USER with NATS_PASSWORD
 * (the per-service users of deploy/nats), or NATS_TOKEN, or NATS_CREDS_FILE (a decentralised-auth
 * `.creds` file), at most one of the three.
 */
export const natsEnv = {
  /** Comma-separated server URLs, e.g. `nats://nats-0.nats:4222,nats://nats-1.nats:4222`. */
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  /** The service's NATS user (deploy/nats generates one per service with its permissions). */
  NATS_USER: z.string().min(1).optional(),
  NATS_PASSWORD: z.string().min(1).optional(),
  /** A server-wide token instead of a user (no per-service permissions). */
  NATS_TOKEN: z.string().min(1).optional(),
  /** A `.creds` file (JWT + nkey seed) for servers in operator mode. */
  NATS_CREDS_FILE: z.string().min(1).optional(),
};

export interface NatsEnv {
  NATS_URL: string;
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  NATS_TOKEN?: string | undefined;
  NATS_CREDS_FILE?: string | undefined;
}

/** What `connectNats` needs to reach and authenticate to the server, from the shared settings. */
export interface NatsConnectSettings {
  servers: string[];
  user?: string;
  pass?: string;
  token?: string;
  authenticator?: Authenticator;
  /** `_INBOX.<user>` for a service that connects as its own user: its replies come there only. */
  inboxPrefix?: string;
}

/**
 * Turns the shared settings into connection settings; throws a ConfigError naming the variables
 * when they contradict each other (a user without a password, two ways of authenticating at once,
 * an unreadable creds file).
 */
export function natsConnectSettings(config: NatsEnv): NatsConnectSettings {
  const problems: Array<{ variable: string; message: string }> = [];
  const servers = config.NATS_URL.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (servers.length === 0) problems.push({ variable: 'NATS_URL', message: 'names no server' });
  const ways = [
    config.NATS_USER !== undefined && 'NATS_USER',
    config.NATS_TOKEN !== undefined && 'NATS_TOKEN',
    config.NATS_CREDS_FILE !== undefined && 'NATS_CREDS_FILE',
  ].filter((w): w is string => typeof w === 'string');
  if (ways.length > 1)
    problems.push({
      variable: ways[1]!,
      message: `set only one of NATS_USER, NATS_TOKEN and NATS_CREDS_FILE (also set: ${ways.filter((w) => w !== ways[1]).join(', ')})`,
    });
  if (config.NATS_USER !== undefined && config.NATS_PASSWORD === undefined)
    problems.push({ variable: 'NATS_PASSWORD', message: 'required when NATS_USER is set' });
  if (config.NATS_PASSWORD !== undefined && config.NATS_USER === undefined)
    problems.push({ variable: 'NATS_USER', message: 'required when NATS_PASSWORD is set' });
  let authenticator: Authenticator | undefined;
  if (config.NATS_CREDS_FILE !== undefined) {
    try {
      authenticator = credsAuthenticator(readFileSync(config.NATS_CREDS_FILE));
    } catch (err) {
      problems.push({
        variable: 'NATS_CREDS_FILE',
        message: `cannot read '${config.NATS_CREDS_FILE}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      });
    }
  }
  const inboxPrefix = config.NATS_USER !== undefined ? natsInboxPrefix(config.NATS_USER) : undefined;
  if (config.NATS_USER !== undefined && inboxPrefix === undefined) {
    problems.push({
      variable: 'NATS_USER',
      message: 'must be one NATS subject token (letters, digits, - and _): its replies come to _INBOX.<user>',
    });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    ...(inboxPrefix ? { inboxPrefix } : {}),
    servers,
    ...(config.NATS_USER !== undefined && config.NATS_PASSWORD !== undefined
      ? { user: config.NATS_USER, pass: config.NATS_PASSWORD }
      : {}),
    ...(config.NATS_TOKEN !== undefined ? { token: config.NATS_TOKEN } : {}),
    ...(authenticator ? { authenticator } : {}),
  };
}
