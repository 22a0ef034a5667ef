// The same 2-step turn (the model asks for `calculator`, then answers) through peer agent
// frameworks in process, durable peers (their state in storage), our engine in process and our
// platform end to end, against ONE llm-sim process (the
// platform's), side by side in one run: for each model latency, rounds in which every peer runs
// once (the order rotated each round), medians over rounds.
// Run: npx nx run bench-peers:bench   (env: ROUNDS, DURATION, DURATION_C1, RAMP, WARMUP,
// CONCURRENCY, LATENCIES_MS, PEERS, FLOOR_DUTIES, BENCH_POSTGRES; see README.md)
import {
  cpuCount,
  intEnv,
  intListEnv,
  parseDuties,
  postgresDurabilityFromEnv,
  setModelLatency,
  startBenchPlatform,
  type BenchPlatform,
} from '@platform/bench-kit';
import { loadavg } from 'node:os';
import { measurePeer, type PeerRound } from './measure-peer.js';
import { durableStoreOf } from './durable/durable-store.js';
import { persistedAll, type Peer, type PersistenceCheck } from './peer.js';
import { makePeer, PEER_KEYS, type PeerKey } from './peers/index.js';
import { reportLatency, reportPersistence } from './report.js';
import { summarize } from './summary.js';

const ROUNDS = intEnv('ROUNDS', 3);
const DURATION = intEnv('DURATION', 10);
const DURATION_C1 = intEnv('DURATION_C1', DURATION);
const RAMP = intEnv('RAMP', 2);
const WARMUP = intEnv('WARMUP', 50);
const CONCURRENCY = intEnv('CONCURRENCY', 64);
const LATENCIES = intListEnv('LATENCIES_MS', [0, 300]);
const POSTGRES = postgresDurabilityFromEnv();
const SELECTED = peersFromEnv(process.env['PEERS']);
/** The duties of the `our-skeleton-duties` row (all of them unless told). */
const FLOOR_DUTIES = parseDuties(process.env['FLOOR_DUTIES'] ?? 'all');

function peersFromEnv(raw: string | undefined): PeerKey[] {
  if (raw === undefined || raw.trim() === '') return [...PEER_KEYS];
  const keys = raw.split(',').map((k) => k.trim());
  const unknown = keys.filter((k) => !(PEER_KEYS as readonly string[]).includes(k));
  if (unknown.length) throw new Error(`PEERS: unknown peer(s) ${unknown.join(', ')}; known: ${PEER_KEYS.join(', ')}`);
  return PEER_KEYS.filter((k) => keys.includes(k));
}

function progress(line: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/** Each round starts one place further along the list, so no peer always runs first (or after the platform). */
function rotated<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
const startedAt = new Date();
const loadAtStart = load();
let bench: BenchPlatform | undefined;
let stopPeers: () => Promise<unknown> = () => Promise.resolve();
try {
  progress(`starting the platform (PostgreSQL ${POSTGRES})`);
  bench = await startBenchPlatform({ durability: POSTGRES, dutyCounters: true });
  const llmSimPid = bench.platform.process('llm-sim')!.pid!;
  const endpoint = { baseURL: bench.model.baseURL, apiKey: bench.model.apiKey };
  const running = bench;
  const store = durableStoreOf(bench.infra.postgres);
  const peers: Peer[] = SELECTED.map((key) => makePeer(key, endpoint, running, store, FLOOR_DUTIES));
  // Set first: a peer whose preparation fails is stopped with the rest (its own processes too).
  stopPeers = () => Promise.all(peers.map((peer) => (peer.stop ? peer.stop() : Promise.resolve())));
  for (const peer of peers) await peer.prepare?.();

  await setModelLatency(bench.llmSimUrl, 0);
  for (const peer of peers) {
    let failures = 0;
    let first: string | undefined;
    for (let i = 0; i < WARMUP; i++) {
      await peer.turn().catch((error: unknown) => {
        failures += 1;
        first ??= error instanceof Error ? error.message : JSON.stringify(error);
      });
    }
    progress(
      `warm-up ${peer.name}: ${WARMUP - failures}/${WARMUP} turns ran${first ? `; first failure: ${first}` : ''}`,
    );
    await peer.settle?.();
  }

  const results = new Map<number, Map<string, PeerRound[]>>(
    LATENCIES.map((ms) => [ms, new Map(peers.map((p) => [p.key, []]))]),
  );
  const settings = {
    concurrency: CONCURRENCY,
    c1Ms: DURATION_C1 * 1000,
    rampMs: RAMP * 1000,
    loadMs: DURATION * 1000,
    llmSimPid,
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const latencyMs of LATENCIES) {
      await setModelLatency(running.llmSimUrl, latencyMs);
      for (const peer of rotated(peers, round)) {
        const measured = await measurePeer(peer, settings);
        results.get(latencyMs)!.get(peer.key)!.push(measured);
        const errors = measured.c1.errors + measured.ramp.errors + measured.load.errors;
        progress(
          `round ${round + 1}/${ROUNDS}, ${latencyMs} ms, ${peer.key}: ${measured.c1.latenciesMs.length} + ${measured.load.latenciesMs.length} turns` +
            (errors
              ? `, ${errors} FAILED (${measured.c1.firstError ?? measured.ramp.firstError ?? measured.load.firstError})`
              : ''),
        );
      }
    }
  }
  await setModelLatency(running.llmSimUrl, 0);
  // The durable peers' storage, read back: every turn each one answered must be there, complete.
  const persistence = new Map<string, PersistenceCheck>();
  for (const peer of peers) if (peer.persisted) persistence.set(peer.key, await peer.persisted());

  const out: string[] = [
    `## bench/peers: the 2-step calculator turn side by side`,
    '',
    `${startedAt.toISOString()} to ${new Date().toISOString()}; node ${process.version}; ${cpuCount()} CPUs; load average (1, 5, 15 min) ${loadAtStart} at the start, ${load()} at the end.`,
    `Rounds ${ROUNDS}; concurrency-1 phase ${DURATION_C1} s, ramp ${RAMP} s and throughput phase ${DURATION} s at concurrency ${CONCURRENCY}, per peer per round; PostgreSQL ${POSTGRES}.`,
  ];
  for (const latencyMs of LATENCIES) {
    const summaries = peers.map((p) => summarize(p.key, p.name, results.get(latencyMs)!.get(p.key)!));
    out.push(...reportLatency(summaries, { latencyMs, concurrency: CONCURRENCY, rounds: ROUNDS }));
  }
  if (persistence.size) out.push(...reportPersistence(peers, persistence));
  process.stdout.write(`${out.join('\n')}\n`);
  const failed = [...results.values()].flatMap((byPeer) =>
    [...byPeer]
      .filter(([, rounds]) => rounds.some((r) => r.c1.errors + r.ramp.errors + r.load.errors > 0))
      .map(([key]) => key),
  );
  if (failed.length) {
    progress(`FAILED: turns did not run as scripted for ${[...new Set(failed)].join(', ')}`);
    process.exitCode = 1;
  }
  const unpersisted = [...persistence].filter(([, check]) => !persistedAll(check)).map(([key]) => key);
  if (unpersisted.length) {
    progress(`FAILED: turns answered but not found complete in storage for ${unpersisted.join(', ')}`);
    process.exitCode = 1;
  }
} finally {
  await stopPeers();
  await bench?.stop();
}
