import { env } from '@platform/service-kit';
import { z } from 'zod';

/** A development secret: only for the local stack, never for a deployment. */
const DEV_JWT_SECRET = 'local-dev-secret-change-me-local-dev-secret';

/** Environment of the local stack (`npm run platform`). */
export const LocalStackConfig = z.object({
  /** Use these servers instead of starting private ones (all three, or none). */
  NATS_URL: z.string().optional(),
  DATABASE_URL: z.string().optional(),
  REDIS_URL: z.string().optional(),
  /** A real OpenAI-compatible model; without it the simulated model (llm-sim) answers. */
  OPENAI_BASE_URL: env.url().optional(),
  OPENAI_API_KEY: z.string().optional(),
  LLM_MODEL: z.string().default('gpt-4o-mini'),
  API_PORT: env.port().default(8080),
  MEMORY_PORT: env.port().default(50051),
  ORCHESTRATOR_PORT: env.port().default(50052),
  AGENT_POOL_PORT: env.port().default(50053),
  CREDENTIAL_PORT: env.port().default(50055),
  /**
   * The credential service's keyring (docs/credentials.md). Unset: a fresh random key each start,
   * fine with the private database; set it when DATABASE_URL points at a database that outlives the session.
   */
  CREDENTIAL_KEYRING: z.string().optional(),
  TRIGGER_PORT: env.port().default(50056),
  LLM_SIM_PORT: env.port().default(4010),
  AUTH_JWT_SECRET: z.string().min(32).default(DEV_JWT_SECRET),
  /** The tenant of the demo conversation and of the printed token. */
  DEMO_TENANT: z.string().default('demo-tenant'),
  DEMO_MESSAGE: z.string().default('What is (17 + 25) * 3, and what time is it in Tokyo right now?'),
  /** Run the demo conversation after start-up. */
  DEMO: env.boolean().default(true),
  /** Stop after the demo instead of serving (for scripted checks). */
  EXIT_AFTER_DEMO: env.boolean().default(false),
  /** Where service logs go (one file per service). */
  LOG_DIR: z.string().default('tmp/local-stack/logs'),
});
export type LocalStackConfig = z.infer<typeof LocalStackConfig>;
