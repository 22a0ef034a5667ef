// Starts a durable PostgreSQL and llm-sim, seeds one memory database with the bench's corpus (10
// tenants x SIZE facts, with llm-sim vectors unless VECTORS=0) and keeps them running until
// SIGINT/SIGTERM, so recall-cost.ts can measure against the same rows many times without seeding
// again. Where to reach them is written to STATE_FILE as JSON ({ url, simUrl, postgresPid, simPid }).
// Run: SIZE=100000 STATE_FILE=/tmp/recall/state.json node --conditions=@platform/source --import tsx bench/memory/src/seeded-cluster.ts
import { startNatsServer, startPostgresServer, startServiceProcess, sharedServicePki } from '@platform/testing';
import { writeFile } from 'node:fs/promises';
import pg from 'pg';
import { seed, TENANTS } from './seeding.js';
import { embedThroughSim, SIM_KEY } from './sim-embeddings.js';

const SIZE = Number(process.env['SIZE'] ?? 100_000);
const VECTORS = process.env['VECTORS'] !== '0';
const STATE_FILE = process.env['STATE_FILE'] ?? 'seeded-cluster.json';

const [postgres, nats] = await Promise.all([startPostgresServer({ durability: 'durable' }), startNatsServer()]);
const sim = await startServiceProcess({
  app: 'llm-sim',
  mode: 'source',
  telemetry: false,
  env: { LLM_SIM_PORT: '0', LLM_SIM_API_KEY: SIM_KEY, LOG_LEVEL: 'warn' },
});
const simUrl = `http://127.0.0.1:${String(sim.ready['port'])}/v1`;
const stop = async (): Promise<void> => {
  await sim.stop();
  await Promise.all([postgres.stop(), nats.stop()]);
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

const url = await postgres.createDatabase(`recall_${SIZE}`);
// The memory service migrates the database (and creates the embeddings table) when it starts.
const memory = await startServiceProcess({
  app: 'memory',
  mode: 'source',
  telemetry: false,
  env: {
    ...(await (await sharedServicePki()).env('memory')),
    DATABASE_URL: url,
    GRPC_PORT: '0',
    OPENAI_BASE_URL: simUrl,
    OPENAI_API_KEY: SIM_KEY,
    MEMORY_EMBEDDING_MODEL: VECTORS ? 'sim-embed-1' : '',
    MEMORY_TOOLS_ENABLED: 'false',
    MEMORY_SESSION_IDLE_MS: '0',
    LOG_LEVEL: 'warn',
    NATS_URL: nats.url,
  },
});
await memory.stop();
const db = new pg.Pool({ connectionString: url, options: '-c search_path=memory', max: 4 });
const started = performance.now();
await seed(db, SIZE, VECTORS ? embedThroughSim(simUrl) : undefined, (line) => process.stdout.write(`${line}\n`));
await db.end();
process.stdout.write(
  `seeded ${TENANTS} x ${SIZE} facts${VECTORS ? ' with vectors' : ''} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
);
await writeFile(STATE_FILE, JSON.stringify({ url, simUrl, postgresPid: postgres.pid, simPid: sim.pid }));
process.stdout.write(`ready: ${STATE_FILE}\n`);
await new Promise(() => undefined);
