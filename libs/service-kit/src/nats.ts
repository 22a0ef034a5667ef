import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { MsgHdrs } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import { natsConnectSettings, type NatsEnv } from './nats-config.js';

export type { NatsConnection } from '@nats-io/transport-node';

export type NatsOptions = NatsCommonOptions &
  (
    | {
        /** Where and how to connect: the service's shared NATS settings (`natsEnv` in its config). */
        config: NatsEnv;
        servers?: never;
      }
    | {
        /** Server URL(s), unauthenticated (tests, benchmarks). */
        servers: string | string[];
        config?: never;
      }
  );

interface NatsCommonOptions {
  /** Shown in the server's connection list (`nats server report connections`). */
  name: string;
  logger: Logger;
  /** How long the first connection may take before boot fails. */
  connectTimeoutMs?: number;
}

/**
 * Connects to NATS and keeps reconnecting forever after the first connection: a NATS restart
 * costs a pause, not the process. Connection state changes are logged.
 */
export async function connectNats(options: NatsOptions): Promise<NatsConnection> {
  const nc = await connect({
    ...(options.config ? natsConnectSettings(options.config) : { servers: options.servers }),
    name: options.name,
    timeout: options.connectTimeoutMs ?? 10_000,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    reconnectJitter: 100,
    pingInterval: 10_000,
    // Otherwise every request builds two errors up front to keep their stack traces; ours carry
    // the subject and the span instead.
    noAsyncTraces: true,
  });
  void logStatus(nc, options.logger);
  options.logger.info({ server: nc.getServer() }, 'nats connected');
  return nc;
}

async function logStatus(nc: NatsConnection, logger: Logger): Promise<void> {
  try {
    for await (const status of nc.status()) {
      switch (status.type) {
        case 'disconnect':
        case 'reconnect':
          logger.warn({ nats: status.type, server: status.server }, `nats ${status.type}`);
          break;
        case 'error':
          // The error itself under `err` (pino serializes it there), so a permission violation
          // or an authorization failure names the subject in the log.
          logger.error({ nats: status.type, err: status.error }, `nats error: ${status.error.message}`);
          break;
        case 'slowConsumer':
          logger.error({ nats: status.type, status }, `nats ${status.type}`);
          break;
        default:
          logger.debug({ nats: status.type }, 'nats status');
      }
    }
  } catch (err) {
    logger.error({ err }, 'nats status stream ended with an error');
  }
}

/** Header access as trace-context carriers and the tool protocol need it. */
export function headerGetter(headers: MsgHdrs | undefined): (key: string) => string | undefined {
  return (key) => {
    if (!headers?.has(key)) return undefined;
    return headers.get(key);
  };
}

export function headerSetter(headers: MsgHdrs): (key: string, value: string) => void {
  return (key, value) => headers.set(key, value);
}

/** A message's JSON body, or undefined when it is not JSON (for schema checks that report it). */
export function jsonBody(message: { json(): unknown }): unknown {
  try {
    return message.json();
  } catch {
    return undefined;
  }
}
