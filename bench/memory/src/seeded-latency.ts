// Recall latency through gRPC (as main.ts measures it) against a database seeded once by
// seeded-cluster.ts, for several memory checkouts in alternating rounds: before/after figures from
// one sitting on the same rows, without seeding 100k facts per tenant (and their HNSW graphs) again.
// Run: STATE_FILE=/tmp/recall/state.json MEMORY_ROOTS=before=/work/main,after=. MODES=keyword,hybrid QUERIES=400 ROUNDS=2 \
//      node --conditions=@platform/source --import tsx bench/memory/src/seeded-latency.ts
import { startNatsServer, startServiceProcess, sharedServicePki } from '@platform/testing';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { measureRecall } from './recall-latency.js';
import { SIM_KEY } from './sim-embeddings.js';

const STATE_FILE = process.env['STATE_FILE'] ?? 'seeded-cluster.json';
const QUERIES = Number(process.env['QUERIES'] ?? 400);
const ROUNDS = Number(process.env['ROUNDS'] ?? 2);
const MODES = (process.env['MODES'] ?? 'keyword,hybrid').split(',');

const state = JSON.parse(await readFile(STATE_FILE, 'utf8')) as { url: string; simUrl: string };
const variants = (process.env['MEMORY_ROOTS'] ?? 'this=.').split(',').map((entry) => {
  const [label, root] = entry.split('=') as [string, string];
  return { label, root: path.resolve(root) };
});
const nats = await startNatsServer();
const lines: string[] = [];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const mode of MODES) {
      for (const v of round % 2 ? variants : [...variants].reverse()) {
        const memory = await startServiceProcess({
          app: 'memory',
          root: v.root,
          mode: 'source',
          telemetry: false,
          env: {
            ...(await (await sharedServicePki()).env('memory')),
            DATABASE_URL: state.url,
            NATS_URL: nats.url,
            GRPC_PORT: '0',
            OPENAI_BASE_URL: state.simUrl,
            OPENAI_API_KEY: SIM_KEY,
            MEMORY_EMBEDDING_MODEL: mode === 'hybrid' ? 'sim-embed-1' : '',
            MEMORY_TOOLS_ENABLED: 'false',
            MEMORY_SESSION_IDLE_MS: '0',
            MEMORY_SESSION_SWEEP_MS: '3600000',
            LOG_LEVEL: 'warn',
          },
        });
        try {
          const line = await measureRecall(
            Number(memory.ready['grpcPort']),
            `round ${round} ${v.label} ${mode}`,
            QUERIES,
          );
          process.stdout.write(`${line}\n`);
          lines.push(line);
        } finally {
          await memory.stop();
        }
      }
    }
  }
} finally {
  await nats.stop();
}
process.stdout.write(
  `\nrecall through gRPC on ${state.url.replace(/^.*\//, '')}, ${QUERIES} queries after 50 warm-up, limit 8, budget 400 tokens:\n${lines.join('\n')}\n`,
);
