import path from 'node:path';
import { env, grpcTlsEnv, natsEnv } from '@platform/service-kit';
import { z } from 'zod';

/** Environment of the travel-runner example, read once at boot; a bad value stops the boot naming the variable. */
export const TravelRunnerConfig = z.object({
  /** NATS_URL, and NATS_USER + NATS_PASSWORD, NATS_TOKEN or NATS_CREDS_FILE when the server authenticates. */
  ...natsEnv,
  /**
   * Redis shared by every replica: `send_email` steps are deduped there by call id, so a repeated
   * approval never writes a second email. While Redis is down the runner keeps serving without that
   * guarantee (the outbox's file-per-call still refuses a second file for the same call).
   */
  REDIS_URL: z.string().min(1).default('redis://127.0.0.1:6379'),
  /** Where `send_email` writes its emails, one JSON file each; relative paths are under the working directory. */
  OUTBOX_DIR: z
    .string()
    .min(1)
    .default('.outbox')
    .transform((dir) => path.resolve(dir)),
  /** The credential service: `send_email` reads the user's mail account token there through its call's grant. */
  CREDENTIAL_ADDRESS: z.string().min(1).default('127.0.0.1:50055'),
  /** GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE: the runner's identity (`runner/travel`) for the credential service. */
  ...grpcTlsEnv,
  /** How long in-flight calls may finish after SIGTERM. */
  SHUTDOWN_GRACE_MS: env.positiveInt().default(10_000),
  LOG_LEVEL: env.logLevel().default('info'),
});
export type TravelRunnerConfig = z.infer<typeof TravelRunnerConfig>;
