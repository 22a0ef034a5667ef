// The floor of our platform's design: the same processes and the same exchanges per turn as the
// platform end to end (HTTP into an api, gRPC to an orchestrator, recall and history from a memory
// service over gRPC with an embeddings request and PostgreSQL queries, the model twice over HTTP,
// the tool on another process over NATS, the run recorded, journaled and finished in durable
// PostgreSQL and the turn appended to memory, each write its own commit), with none of the
// platform's code between them: no auth, admission, leases, events, tracing, logging, limits or
// validation (skeleton/). Whatever the platform costs beyond this row is its code; what this row
// costs is what the design's process boundaries and durable writes cost on this machine.
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { cpuOfTree, JsonClient, type BenchPlatform } from '@platform/bench-kit';
import { ManagedProcess } from '@platform/testing';
import { PROMPT, verifyAnswer } from '../calculator-turn.js';
import type { Peer } from '../peer.js';

const SCHEMA = `
  CREATE SCHEMA IF NOT EXISTS skeleton;
  CREATE TABLE IF NOT EXISTS skeleton.runs (run_id uuid PRIMARY KEY, tenant text NOT NULL, conversation text NOT NULL, status text NOT NULL, input text NOT NULL, journal jsonb, result text, created_at timestamptz NOT NULL DEFAULT now(), finished_at timestamptz);
  CREATE TABLE IF NOT EXISTS skeleton.messages (seq bigserial PRIMARY KEY, tenant text NOT NULL, conversation text NOT NULL, message jsonb NOT NULL);
  CREATE INDEX IF NOT EXISTS messages_by_conversation ON skeleton.messages (tenant, conversation, seq);
  CREATE TABLE IF NOT EXISTS skeleton.facts (tenant text NOT NULL, fact text NOT NULL);
  CREATE INDEX IF NOT EXISTS facts_by_tenant ON skeleton.facts (tenant, fact);`;

const ROLES = ['tool', 'memory', 'orchestrator', 'api'] as const;
type Role = (typeof ROLES)[number];

async function startRole(role: Role, env: Record<string, string>): Promise<{ process: ManagedProcess; port: number }> {
  const entry = fileURLToPath(new URL(`../skeleton/role-${role}.ts`, import.meta.url));
  const child = ManagedProcess.start(`skeleton ${role}`, process.execPath, ['--conditions=@platform/source', '--import', 'tsx', entry], { env: { ...process.env, ...env } });
  await child.waitForOutput((output) => /READY \d+/.test(output), 30_000);
  const port = Number(/READY (\d+)/.exec(child.recentOutput)![1]);
  return { process: child, port };
}

export function ourSkeletonPeer(bench: BenchPlatform): Peer {
  const client = new JsonClient();
  const processes = new Map<Role, ManagedProcess>();
  let apiUrl = '';
  let conversation = 0;
  const name = `our design's floor (the platform's processes and exchanges, no platform code; PostgreSQL ${bench.durability})`;
  return {
    key: 'our-skeleton',
    name,
    async prepare() {
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
      for (const role of ROLES) {
        const started = await startRole(role, env);
        processes.set(role, started.process);
        if (role === 'memory') env['MEMORY_ADDRESS'] = `127.0.0.1:${started.port}`;
        if (role === 'orchestrator') env['ORCHESTRATOR_ADDRESS'] = `127.0.0.1:${started.port}`;
        if (role === 'api') apiUrl = `http://127.0.0.1:${started.port}/turn`;
      }
    },
    async turn() {
      const response = await client.post(apiUrl, {}, { conversation: `skeleton-${++conversation}`, content: PROMPT });
      const body = response.body as { response?: string; error?: string };
      if (response.status !== 200) throw new Error(`HTTP ${response.status} ${body.error ?? ''}`);
      verifyAnswer(name, body.response);
    },
    async cpuMs() {
      const cpu = new Map<string, number>();
      for (const [role, child] of processes) cpu.set(`skeleton ${role}`, await cpuOfTree(child.pid!));
      const servers = await bench.sample();
      for (const server of ['postgres', 'nats-server'] as const) cpu.set(server, servers.get(server)!.cpuMs);
      return cpu;
    },
    async stop() {
      client.close();
      await Promise.all([...processes.values()].map((child) => child.stop()));
    },
  };
}
