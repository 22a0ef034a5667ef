// Each durable peer for a few turns against a durable PostgreSQL and llm-sim, then the check the
// bench reports: every turn it answered is found complete in its storage. Seconds, not a benchmark.
import {
  startPostgresServer,
  startServiceProcess,
  freePort,
  type PostgresServerHandle,
  type ServiceProcess,
} from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { persistedAll, type ModelEndpoint } from '../peer.js';
import { makeDurablePeer, DURABLE_PEER_KEYS } from '../peers/durable.js';
import { durableStoreOf, queryRows, type DurableStore } from './durable-store.js';

const TURNS = 3;
const API_KEY = 'sim-key';

let postgres: PostgresServerHandle | undefined;
let llmSim: ServiceProcess | undefined;
let endpoint: ModelEndpoint;
let store: DurableStore;

beforeAll(async () => {
  const port = await freePort();
  [postgres, llmSim] = await Promise.all([
    startPostgresServer({ durability: 'durable' }),
    startServiceProcess({
      app: 'llm-sim',
      mode: 'source',
      telemetry: false,
      env: { LLM_SIM_PORT: String(port), LLM_SIM_API_KEY: API_KEY, LOG_LEVEL: 'warn' },
    }),
  ]);
  endpoint = { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: API_KEY };
  store = durableStoreOf(postgres);
}, 120_000);

afterAll(async () => {
  await llmSim?.stop();
  await postgres?.stop();
});

describe('the durable peers', () => {
  it('run on a PostgreSQL that syncs every commit', async () => {
    const rows = await queryRows<{ name: string; setting: string }>(
      postgres!.url(),
      "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit') ORDER BY name",
    );
    expect(rows).toEqual([
      { name: 'fsync', setting: 'on' },
      { name: 'synchronous_commit', setting: 'on' },
    ]);
  });

  it.each(DURABLE_PEER_KEYS)('%s stores every turn it answers', async (key) => {
    const peer = makeDurablePeer(key, endpoint, store);
    try {
      await peer.prepare?.();
      for (let i = 0; i < TURNS; i++) await peer.turn();
      const check = await peer.persisted!();
      process.stderr.write(`${key}: ${check.turns} turns; ${check.detail}\n`);
      // Restate's start runs one turn of its own (until its partitions have leaders), which counts.
      expect(check.turns, check.detail).toBeGreaterThanOrEqual(TURNS);
      expect(check.stored, check.detail).toBe(check.turns);
      expect(persistedAll(check)).toBe(true);
      const cpu = await peer.cpuMs();
      expect(
        [...cpu.values()].every((ms) => ms > 0),
        JSON.stringify([...cpu]),
      ).toBe(true);
    } finally {
      await peer.stop?.();
    }
  });
});
