// The floor of the platform's design (bench/peers README, "The floor of the design"): four small
// processes making exactly the exchanges of a durable turn, on the bench platform's PostgreSQL,
// NATS and llm-sim, with none of the platform's code between them; with `duties`, also doing in
// their cheapest form the platform's duties besides the exchanges (duties.ts).
import { randomBytes } from 'node:crypto';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ManagedProcess } from '@platform/testing';
import { CALCULATOR_PROMPT, CALCULATOR_RESULT } from '../calculator.js';
import { JsonClient } from '../json-client.js';
import { cpuOfTree } from '../process-usage.js';
import { connect } from '@nats-io/transport-node';
import { waitForIngestionDrain } from '../ingestion-queue.js';
import type { SkeletonDuty } from './duties.js';
import { createLearnedTable, LEARNING_QUEUE } from './duty-ingestion.js';

const SCHEMA = `
  CREATE SCHEMA IF NOT EXISTS skeleton;
  CREATE TABLE IF NOT EXISTS skeleton.runs (run_id uuid PRIMARY KEY, tenant text NOT NULL, conversation text NOT NULL, status text NOT NULL, input text NOT NULL, fence bigint, journal jsonb, result text, created_at timestamptz NOT NULL DEFAULT now(), finished_at timestamptz);
  CREATE TABLE IF NOT EXISTS skeleton.messages (seq bigserial PRIMARY KEY, tenant text NOT NULL, conversation text NOT NULL, message jsonb NOT NULL);
  CREATE INDEX IF NOT EXISTS messages_by_conversation ON skeleton.messages (tenant, conversation, seq);
  CREATE TABLE IF NOT EXISTS skeleton.facts (tenant text NOT NULL, fact text NOT NULL);
  CREATE INDEX IF NOT EXISTS facts_by_tenant ON skeleton.facts (tenant, fact);`;

/** In start order: each role's address goes to the roles after it. */
const ROLES = ['tool', 'memory', 'orchestrator', 'api'] as const;
export type SkeletonRole = (typeof ROLES)[number];

/** What the skeleton runs on: a bench platform's PostgreSQL, NATS and model (llm-sim), or any such. */
export interface SkeletonServers {
  infra: { descriptor: { postgresUrl: string; natsUrl: string; redisUrl: string } };
  model: { baseURL: string; apiKey: string };
}

export interface Skeleton {
  /** The api's `POST /turn` address. */
  readonly apiUrl: string;
  /** One calculator turn through the skeleton's api; throws unless it answered 200 quoting the tool's result. */
  turn(): Promise<void>;
  /** Cumulative CPU ms of the skeleton's processes (`skeleton <role>`). */
  cpuMs(): Promise<Map<string, number>>;
  /** With the duties on, waits until memory has learned from every turn handed to it (at once without them). */
  drainLearning(): Promise<void>;
  /** Stops one role's process (a test's way to see a turn fail rather than hang). */
  stopRole(role: SkeletonRole): Promise<void>;
  stop(): Promise<void>;
}

export interface SkeletonOptions {
  /** The product's duties the roles do besides the exchanges (duties.ts); none by default. */
  duties?: readonly SkeletonDuty[];
  /** Extra environment for every role (a test's OTLP endpoint, say). */
  env?: Readonly<Record<string, string>>;
}

async function startRole(
  role: SkeletonRole,
  env: Record<string, string>,
  traced: boolean,
): Promise<{ process: ManagedProcess; port: number }> {
  // Next to this module, in source (.ts, run through tsx) or built (.js) form alike.
  const entry = fileURLToPath(new URL(`./role-${role}${extname(fileURLToPath(import.meta.url))}`, import.meta.url));
  // Traced as the platform's services are: OpenTelemetry's instrumentations loaded first, spans recorded (and dropped without an OTLP endpoint, as in the bench platform).
  const tracing = traced ? ['--import', '@platform/telemetry/register'] : [];
  const child = ManagedProcess.start(
    `skeleton ${role}`,
    process.execPath,
    ['--conditions=@platform/source', '--import', 'tsx', ...tracing, entry],
    { env: { ...process.env, ...env, OTEL_SERVICE_NAME: `skeleton-${role}` } },
  );
  try {
    await child.waitForOutput((output) => /READY \d+/.test(output), 30_000);
  } catch (error) {
    await child.stop();
    throw error;
  }
  return { process: child, port: Number(/READY (\d+)/.exec(child.recentOutput)![1]) };
}

export async function startSkeleton(bench: SkeletonServers, options: SkeletonOptions = {}): Promise<Skeleton> {
  const duties = new Set(options.duties ?? []);
  const db = new pg.Client({ connectionString: bench.infra.descriptor.postgresUrl });
  await db.connect();
  let vectorSchema = '';
  try {
    await db.query(SCHEMA);
    if (duties.has('learning')) vectorSchema = await createLearnedTable(db);
  } finally {
    await db.end();
  }
  const env: Record<string, string> = {
    ...options.env,
    DATABASE_URL: bench.infra.descriptor.postgresUrl,
    NATS_URL: bench.infra.descriptor.natsUrl,
    MODEL_BASE_URL: bench.model.baseURL,
    MODEL_API_KEY: bench.model.apiKey,
  };
  const apiKey = randomBytes(24).toString('base64url');
  Object.assign(env, {
    SKELETON_DUTIES: [...duties].join(','),
    REDIS_URL: bench.infra.descriptor.redisUrl,
    SKELETON_API_KEY: apiKey,
    VECTOR_SCHEMA: vectorSchema,
  });
  const headers: Record<string, string> = duties.has('auth') ? { authorization: `Bearer ${apiKey}` } : {};
  const processes = new Map<SkeletonRole, ManagedProcess>();
  const client = new JsonClient();
  const stop = async (): Promise<void> => {
    client.close();
    await Promise.all([...processes.values()].map((child) => child.stop()));
  };
  let apiUrl = '';
  try {
    for (const role of ROLES) {
      const started = await startRole(role, env, duties.has('tracing'));
      processes.set(role, started.process);
      if (role === 'memory') env['MEMORY_ADDRESS'] = `127.0.0.1:${started.port}`;
      if (role === 'orchestrator') env['ORCHESTRATOR_ADDRESS'] = `127.0.0.1:${started.port}`;
      if (role === 'api') apiUrl = `http://127.0.0.1:${started.port}/turn`;
    }
  } catch (error) {
    await stop();
    throw error;
  }
  let conversation = 0;
  return {
    apiUrl,
    async turn() {
      const response = await client.post(apiUrl, headers, {
        conversation: `skeleton-${++conversation}`,
        content: CALCULATOR_PROMPT,
      });
      const body = response.body as { response?: string; error?: string };
      if (response.status !== 200) throw new Error(`HTTP ${response.status} ${body.error ?? ''}`);
      if (!body.response?.includes(`= ${CALCULATOR_RESULT}`))
        throw new Error(`unexpected answer: ${JSON.stringify(body).slice(0, 200)}`);
    },
    async cpuMs() {
      const cpu = new Map<string, number>();
      for (const [role, child] of processes) cpu.set(`skeleton ${role}`, await cpuOfTree(child.pid!));
      return cpu;
    },
    async drainLearning() {
      if (!duties.has('learning')) return;
      const nc = await connect({ servers: bench.infra.descriptor.natsUrl, name: 'skeleton-drain' });
      try {
        await waitForIngestionDrain(nc, 50, LEARNING_QUEUE);
      } finally {
        await nc.close();
      }
    },
    stopRole: async (role) => {
      await processes.get(role)?.stop();
    },
    stop,
  };
}
