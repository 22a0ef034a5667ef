import { memoryV1 } from '@platform/proto';
import { createGrpcClient, MutualTlsTransport } from '@platform/service-kit';
import { median, percentile, testCertificates } from '@platform/testing';
import { loadavg } from 'node:os';
import { random, syntheticQuery } from './corpus.js';
import { TENANTS } from './seeding.js';

/** Recall latency through the memory service's gRPC API: `queries` synthetic recalls (limit 8, budget 400) after 50 warm-up, one line of p50 / p99. */
export async function measureRecall(port: number, label: string, queries: number): Promise<string> {
  const client = createGrpcClient(memoryV1.MemoryServiceClient, memoryV1.MemoryServiceService, `127.0.0.1:${port}`, {
    defaultDeadlineMs: 30_000,
    // Recall is the orchestrator's call (memory answers it only).
    transport: new MutualTlsTransport(await testCertificates('orchestrator')),
    server: 'memory',
  });
  const rnd = random(42);
  const call = async () => {
    const tenant = `tenant-${Math.floor(rnd() * TENANTS)}`;
    const started = performance.now();
    const response = await client.rpc.recall({
      tenantId: tenant,
      query: syntheticQuery(rnd),
      collectionPrefix: '',
      limit: 8,
      tokenBudget: 400,
      conversationId: '',
      includeEpisodes: true,
    });
    return { ms: performance.now() - started, mode: response.searchMode, items: response.items.length };
  };
  for (let i = 0; i < 50; i++) await call();
  const results: { ms: number; mode: string; items: number }[] = [];
  for (let i = 0; i < queries; i++) results.push(await call());
  client.close();
  const ms = results.map((r) => r.ms).sort((a, b) => a - b);
  const modes = [...new Set(results.map((r) => r.mode))].join('/');
  return `${label.padEnd(34)} load=${loadavg()[0]!.toFixed(1).padStart(4)} mode=${modes.padEnd(8)} p50=${median(ms).toFixed(2).padStart(7)} ms  p99=${percentile(ms, 99).toFixed(2).padStart(7)} ms  items/query=${(results.reduce((a, r) => a + r.items, 0) / results.length).toFixed(1)}`;
}
