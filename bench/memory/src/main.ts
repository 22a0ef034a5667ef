// Recall latency of the memory service at 10k and 100k current facts per tenant across 10 tenants,
// keyword-only (full text + trigram) and hybrid (plus pgvector HNSW), through its real gRPC API.
// Facts are seeded with SQL (and, for hybrid, llm-sim embeddings) into a private Postgres.
// Run: npx nx run bench-memory:bench   (env: SIZES=10000,100000  QUERIES=400  HYBRID_SIZES=10000)
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { MEMORY_INGEST_STREAM, memoryIngestSubject } from '@platform/contracts';
import { connectNats, createLogger } from '@platform/service-kit';
import {
  startNatsServer,
  startPostgresServer,
  startServiceProcess,
  type ServiceProcess,
  sharedServicePki,
} from '@platform/testing';
import pg from 'pg';
import { measureRecall } from './recall-latency.js';
import { seed, TENANTS } from './seeding.js';
import { embedThroughSim, SIM_KEY } from './sim-embeddings.js';

const SIZES = (process.env['SIZES'] ?? '10000,100000').split(',').map(Number);
const HYBRID_SIZES = new Set((process.env['HYBRID_SIZES'] ?? '10000').split(',').filter(Boolean).map(Number));
const QUERIES = Number(process.env['QUERIES'] ?? 400);
const INGEST_TURNS = Number(process.env['INGEST_TURNS'] ?? 1_000);

/** Turns ingested per second with llm-sim extracting instantly: publish them all, time until the queue drains. */
async function ingestion(natsUrl: string, port: number): Promise<string> {
  const nc = await connectNats({
    servers: natsUrl,
    name: 'bench-memory',
    logger: createLogger({ service: 'bench-memory', level: 'warn' }),
  });
  try {
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const started = performance.now();
    for (let i = 0; i < INGEST_TURNS; i++) {
      const tenantId = `tenant-${i % TENANTS}`;
      const turn = {
        type: 'memory.turn_finished',
        tenantId,
        conversationId: `conv-${i % 100}`,
        runId: `run-${i}`,
        firstSeq: 1,
        lastSeq: 2,
        messages: [
          {
            seq: 1,
            message: {
              role: 'user',
              content: `My name is Person${i}. I live in City${i % 50} and I like tea number ${i}.`,
            },
          },
          { seq: 2, message: { role: 'assistant', content: 'Noted.' } },
        ],
        finishedAt: new Date().toISOString(),
      };
      await js.publish(memoryIngestSubject(tenantId), JSON.stringify(turn), { msgID: `bench-${i}` });
    }
    for (;;) {
      const info = await jsm.consumers.info(MEMORY_INGEST_STREAM, 'memory-ingest');
      if (info.num_pending === 0 && info.num_ack_pending === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    void port;
    return `ingestion: ${INGEST_TURNS} turns in ${seconds.toFixed(1)} s = ${(INGEST_TURNS / seconds).toFixed(0)} turns/s (one replica, concurrency 8, instant model)`;
  } finally {
    await nc.drain();
  }
}

async function main(): Promise<void> {
  const [postgres, nats] = await Promise.all([startPostgresServer({ durability: 'durable' }), startNatsServer()]);
  const sim = await startServiceProcess({
    app: 'llm-sim',
    mode: 'source',
    telemetry: false,
    env: { LLM_SIM_PORT: '0', LLM_SIM_API_KEY: SIM_KEY, LOG_LEVEL: 'warn' },
  });
  const simUrl = `http://127.0.0.1:${String(sim.ready['port'])}/v1`;
  const embed = embedThroughSim(simUrl);
  const lines: string[] = [];
  try {
    for (const size of SIZES) {
      for (const hybrid of HYBRID_SIZES.has(size) ? [false, true] : [false]) {
        const url = await postgres.createDatabase(`bench_${size}_${hybrid ? 'h' : 'k'}`);
        let memory: ServiceProcess | undefined;
        try {
          memory = await startServiceProcess({
            app: 'memory',
            mode: 'source',
            telemetry: false,
            env: {
              ...process.env,
              ...(await (await sharedServicePki()).env('memory')),
              DATABASE_URL: url,
              NATS_URL: nats.url,
              GRPC_PORT: '0',
              OPENAI_BASE_URL: simUrl,
              OPENAI_API_KEY: SIM_KEY,
              MEMORY_EMBEDDING_MODEL: hybrid ? 'sim-embed-1' : '',
              MEMORY_TOOLS_ENABLED: 'false',
              MEMORY_SESSION_IDLE_MS: '0',
              MEMORY_SESSION_SWEEP_MS: '3600000',
              LOG_LEVEL: 'warn',
            },
          });
          const db = new pg.Pool({ connectionString: url, options: '-c search_path=memory', max: 4 });
          const seeded = performance.now();
          await seed(db, size, hybrid ? embed : undefined, (line) => process.stdout.write(`${line}\n`));
          await db.end();
          process.stdout.write(
            `seeded ${TENANTS} x ${size} facts${hybrid ? ' with vectors' : ''} in ${((performance.now() - seeded) / 1000).toFixed(0)} s\n`,
          );
          const line = await measureRecall(
            Number(memory.ready['grpcPort']),
            `${size} facts/tenant x ${TENANTS}, ${hybrid ? 'hybrid' : 'keyword'}`,
            QUERIES,
          );
          process.stdout.write(`${line}\n`);
          lines.push(line);
        } finally {
          await memory?.stop();
        }
      }
    }
    if (INGEST_TURNS > 0) {
      const url = await postgres.createDatabase('bench_ingest');
      const memory = await startServiceProcess({
        app: 'memory',
        mode: 'source',
        telemetry: false,
        env: {
          ...process.env,
          ...(await (await sharedServicePki()).env('memory')),
          DATABASE_URL: url,
          NATS_URL: nats.url,
          GRPC_PORT: '0',
          OPENAI_BASE_URL: simUrl,
          OPENAI_API_KEY: SIM_KEY,
          MEMORY_EXTRACTION_MODEL: 'sim-1',
          MEMORY_INGEST_CONCURRENCY: '8',
          MEMORY_TOOLS_ENABLED: 'false',
          MEMORY_SESSION_IDLE_MS: '0',
          LOG_LEVEL: 'warn',
        },
      });
      try {
        const line = await ingestion(nats.url, Number(memory.ready['grpcPort']));
        process.stdout.write(`${line}\n`);
        lines.push(line);
      } finally {
        await memory.stop();
      }
    }
  } finally {
    await sim.stop();
    await Promise.all([postgres.stop(), nats.stop()]);
  }
  process.stdout.write(
    `\nrecall through gRPC, ${QUERIES} queries after 50 warm-up, limit 8, budget 400 tokens:\n${lines.join('\n')}\n`,
  );
}

await main();
