import { env } from '@platform/service-kit';
import { z } from 'zod';

/** Environment of the HTTP api. */
export const ApiConfig = z.object({
  HTTP_HOST: z.string().default('127.0.0.1'),
  HTTP_PORT: env.port().default(8080),
  ORCHESTRATOR_ADDRESS: z.string().default('127.0.0.1:50052'),
  MEMORY_ADDRESS: z.string().default('127.0.0.1:50051'),
  /** HS256 secret that signs client tokens; at least 32 characters. */
  AUTH_JWT_SECRET: z.string().min(32, 'must be at least 32 characters'),
  /** Longest message content accepted, in characters (longer -> 413). */
  MAX_MESSAGE_CHARS: env.positiveInt().default(32_000),
  /** Largest request body accepted, in bytes (larger -> 413). */
  MAX_BODY_BYTES: env.positiveInt().default(1024 * 1024),
  /** How long the api waits for a turn; keep it above the orchestrator's TURN_TIMEOUT_MS. */
  TURN_WAIT_MS: env.positiveInt().default(150_000),
  /** Deadline of other gRPC calls (history, health). */
  GRPC_DEADLINE_MS: env.positiveInt().default(10_000),
  SHUTDOWN_GRACE_MS: env.positiveInt().default(30_000),
  LOG_LEVEL: env.logLevel().default('info'),
});
export type ApiConfig = z.infer<typeof ApiConfig>;
