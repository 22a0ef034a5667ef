// The floor of the platform's design (bench/peers README, "The floor of the design"): four small
// processes making exactly the exchanges of a durable turn, on the bench platform's PostgreSQL,
// NATS and llm-sim, with none of the platform's code between them.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ManagedProcess } from '@platform/testing';
import { CALCULATOR_PROMPT, CALCULATOR_RESULT } from '../calculator.js';
import { JsonClient } from '../json-client.js';
import { cpuOfTree } from '../process-usage.js';

const SCHEMA = `
  CREATE SCHEMA IF NOT EXISTS skeleton;
  CREATE TABLE IF NOT EXISTS skeleton.runs (run_id uuid PRIMARY KEY, tenant text NOT NULL, conversation text NOT NULL, status text NOT NULL, input text NOT NULL, journal jsonb, result text, created_at timestamptz NOT NULL DEFAULT now(), finished_at timestamptz);
  CREATE TABLE IF NOT EXISTS skeleton.messages (seq bigserial PRIMARY KEY, tenant text NOT NULL, conversation text NOT NULL, message jsonb NOT NULL);
  CREATE INDEX IF NOT EXISTS messages_by_conversation ON skeleton.messages (tenant, conversation, seq);
  CREATE TABLE IF NOT EXISTS skeleton.facts (tenant text NOT NULL, fact text NOT NULL);
  CREATE INDEX IF NOT EXISTS facts_by_tenant ON skeleton.facts (tenant, fact);`;

/** In start order: each role's address goes to the roles after it. */
const ROLES = ['tool', 'memory', 'orchestrator', 'api'] as const;
export type SkeletonRole = (typeof ROLES)[number];

/** What the skeleton runs on: a bench platform's PostgreSQL, NATS and model (llm-sim), or any such. */
export interface SkeletonServers {
  infra: { descriptor: { postgresUrl: string; natsUrl: string } };
  model: { baseURL: string; apiKey: string };
}

export interface Skeleton {
  /** One calculator turn through the skeleton's api; throws unless it answered 200 quoting the tool's result. */
  turn(): Promise<void>;
  /** Cumulative CPU ms of the skeleton's processes (`skeleton <role>`). */
  cpuMs(): Promise<Map<string, number>>;
  /** Stops one role's process (a test's way to see a turn fail rather than hang). */
  stopRole(role: SkeletonRole): Promise<void>;
  stop(): Promise<void>;
}

async function startRole(role: SkeletonRole, env: Record<string, string>): Promise<{ process: ManagedProcess; port: number }> {
  // Next to this module, in source (.ts, run through tsx) or built (.js) form alike.
  const entry = fileURLToPath(new URL(`./role-${role}${extname(fileURLToPath(import.meta.url))}`, import.meta.url));
  const child = ManagedProcess.start(`skeleton ${role}`, process.execPath, ['--conditions=@platform/source', '--import', 'tsx', entry], { env: { ...process.env, ...env } });
  try {
    await child.waitForOutput((output) => /READY \d+/.test(output), 30_000);
  } catch (error) {
    await child.stop();
    throw error;
  }
  return { process: child, port: Number(/READY (\d+)/.exec(child.recentOutput)![1]) };
}

export async function startSkeleton(bench: SkeletonServers): Promise<Skeleton> {
  const db = new pg.Client({ connectionString: bench.infra.descriptor.postgresUrl });
  await db.connect();
  try {
    await db.query(SCHEMA);
  } finally {
    await db.end();
  }
  const env: Record<string, string> = {
    DATABASE_URL: bench.infra.descriptor.postgresUrl,
    NATS_URL: bench.infra.descriptor.natsUrl,
    MODEL_BASE_URL: bench.model.baseURL,
    MODEL_API_KEY: bench.model.apiKey,
  };
  const processes = new Map<SkeletonRole, ManagedProcess>();
  const client = new JsonClient();
  const stop = async (): Promise<void> => {
    client.close();
    await Promise.all([...processes.values()].map((child) => child.stop()));
  };
  let apiUrl = '';
  try {
    for (const role of ROLES) {
      const started = await startRole(role, env);
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
    async turn() {
      const response = await client.post(apiUrl, {}, { conversation: `skeleton-${++conversation}`, content: CALCULATOR_PROMPT });
      const body = response.body as { response?: string; error?: string };
      if (response.status !== 200) throw new Error(`HTTP ${response.status} ${body.error ?? ''}`);
      if (!body.response?.includes(`= ${CALCULATOR_RESULT}`)) throw new Error(`unexpected answer: ${JSON.stringify(body).slice(0, 200)}`);
    },
    async cpuMs() {
      const cpu = new Map<string, number>();
      for (const [role, child] of processes) cpu.set(`skeleton ${role}`, await cpuOfTree(child.pid!));
      return cpu;
    },
    stopRole: async (role) => {
      await processes.get(role)?.stop();
    },
    stop,
  };
}
