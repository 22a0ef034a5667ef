import { env } from '@platform/service-kit';
import { z } from 'zod';

/** Environment of the memory service. */
export const MemoryConfig = z.object({
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/platform'),
  DATABASE_POOL_MAX: env.positiveInt().default(10),
  GRPC_HOST: z.string().default('127.0.0.1'),
  GRPC_PORT: env.port().default(50051),
  /** Messages one ListMessages call returns when the caller sets no limit, and the most it may ask for. */
  MEMORY_PAGE_SIZE: env.positiveInt().default(500),
  MEMORY_MAX_PAGE_SIZE: env.positiveInt().default(5_000),
  /**
   * Message bytes one ListMessages page holds at most (a page always holds one message): pages stay
   * far below the gRPC message limit whatever the messages' sizes. Also the most a caller may ask for.
   */
  MEMORY_MAX_PAGE_BYTES: env.positiveInt().default(8 * 1024 * 1024),
  /** Most messages one AppendMessages call may carry, and the largest single message in bytes. */
  MEMORY_MAX_APPEND_MESSAGES: env.positiveInt().default(1_000),
  MEMORY_MAX_MESSAGE_BYTES: env.positiveInt().default(4 * 1024 * 1024),
  SHUTDOWN_GRACE_MS: env.positiveInt().default(10_000),
  LOG_LEVEL: env.logLevel().default('info'),
});
export type MemoryConfig = z.infer<typeof MemoryConfig>;
