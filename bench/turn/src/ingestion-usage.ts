// What each process of the machine spent, and what each platform asked of its model and its
// ingestion queue, between two readings: the per-process cost of one variant of the ingestion A/B.
import { jetstreamManager } from '@nats-io/jetstream';
import {
  cpuOfProcessTree,
  postgresCpuByDatabase,
  readLlmSimStats,
  readMachineCpu,
  readProcessTable,
  type LlmSimStats,
} from '@platform/bench-kit';
import { MEMORY_INGEST_STREAM } from '@platform/contracts';
import type { NatsConnection } from '@platform/service-kit';
import { PLATFORM_APPS, type Platform } from '@platform/testing';

/** One platform of the A/B, as the readings need it. */
export interface MeasuredPlatform {
  platform: Platform;
  natsPid: number;
  nc: NatsConnection;
  database: string;
}

export interface SharedServers {
  postgresPid: number;
  redisPid: number;
}

/** CPU ms of every process that matters, by name, at one moment. */
export interface Reading {
  cpuMs: Map<string, number>;
  /** The whole machine's busy CPU ms (/proc/stat), which the rows above should add up to. */
  machineBusyMs: number;
  llmSim: LlmSimStats;
  /** Messages ever stored on the ingestion stream (its last sequence), and deliveries to memory. */
  queue: { published: number; delivered: number; redelivered: number };
}

/** Row names for the platform being measured; the other platform idles meanwhile (its services and its database are a row each). */
export const OWN_ROWS = [...PLATFORM_APPS, 'nats-server', 'postgres (own database)'] as const;
export const SHARED_ROWS = [
  'postgres (shared: postmaster, WAL, ended backends)',
  'redis-server (shared)',
  'other platform (idle): services and NATS',
  'other platform (idle): its database',
  'bench load generator',
] as const;

/** Reads CPU of `own`'s processes, the shared servers and `other` (idle), plus `own`'s llm-sim and queue totals. */
export async function read(own: MeasuredPlatform, other: MeasuredPlatform, shared: SharedServers): Promise<Reading> {
  const [table, machine, llmSim, queue] = await Promise.all([
    readProcessTable(),
    readMachineCpu(),
    readLlmSimStats(own.platform.llmSimUrl!),
    queueTotals(own.nc),
  ]);
  const cpuMs = new Map<string, number>();
  const platformCpu = (p: MeasuredPlatform, into: (name: string, ms: number) => void) => {
    for (const app of PLATFORM_APPS) {
      const pid = p.platform.process(app)?.pid;
      if (pid) into(app, cpuOfProcessTree(table, pid));
    }
    into('nats-server', cpuOfProcessTree(table, p.natsPid));
  };
  platformCpu(own, (name, ms) => cpuMs.set(name, ms));
  const postgres = postgresCpuByDatabase(table, shared.postgresPid, [own.database, other.database]);
  cpuMs.set('postgres (own database)', postgres.get(own.database) ?? 0);
  cpuMs.set(SHARED_ROWS[0], postgres.get('shared') ?? 0);
  cpuMs.set(SHARED_ROWS[1], cpuOfProcessTree(table, shared.redisPid));
  let idleServices = 0;
  platformCpu(other, (_name, ms) => (idleServices += ms));
  cpuMs.set(SHARED_ROWS[2], idleServices);
  cpuMs.set(SHARED_ROWS[3], postgres.get(other.database) ?? 0);
  const self = process.cpuUsage();
  cpuMs.set(SHARED_ROWS[4], (self.user + self.system) / 1000);
  return { cpuMs, machineBusyMs: machine.busyMs, llmSim, queue };
}

async function queueTotals(nc: NatsConnection): Promise<Reading['queue']> {
  const jsm = await jetstreamManager(nc);
  const stream = await jsm.streams.info(MEMORY_INGEST_STREAM).catch(() => undefined);
  const consumer = await jsm.consumers.info(MEMORY_INGEST_STREAM, 'memory-ingest').catch(() => undefined);
  return {
    published: stream?.state.last_seq ?? 0,
    delivered: consumer?.delivered.consumer_seq ?? 0,
    redelivered: consumer?.num_redelivered ?? 0,
  };
}

/** What one measured window cost per turn: CPU ms by row, and calls per turn. */
export interface WindowCost {
  /** The turns the window measured (its weight when windows are pooled). */
  turns: number;
  cpuPerTurn: Map<string, number>;
  /** The whole machine's busy CPU per turn (/proc/stat). */
  machinePerTurn: number;
  perTurn: Map<string, number>;
}

/** Per-turn difference of two readings. */
export function costPerTurn(before: Reading, after: Reading, turns: number): WindowCost {
  const cpuPerTurn = new Map<string, number>();
  for (const [name, ms] of after.cpuMs) cpuPerTurn.set(name, (ms - (before.cpuMs.get(name) ?? 0)) / turns);
  const perTurn = new Map<string, number>();
  const kinds = new Set([...Object.keys(before.llmSim), ...Object.keys(after.llmSim)]);
  for (const kind of kinds) {
    const a = after.llmSim[kind] ?? { requests: 0, bytes: 0, inputs: 0 };
    const b = before.llmSim[kind] ?? { requests: 0, bytes: 0, inputs: 0 };
    perTurn.set(`llm-sim ${kind} requests`, (a.requests - b.requests) / turns);
    perTurn.set(`llm-sim ${kind} request kB`, (a.bytes - b.bytes) / 1024 / turns);
    if (kind === 'embeddings') perTurn.set('llm-sim embeddings inputs', (a.inputs - b.inputs) / turns);
  }
  perTurn.set('ingestion messages published', (after.queue.published - before.queue.published) / turns);
  perTurn.set('ingestion deliveries to memory', (after.queue.delivered - before.queue.delivered) / turns);
  return { turns, cpuPerTurn, machinePerTurn: (after.machineBusyMs - before.machineBusyMs) / turns, perTurn };
}

/**
 * Per-turn cost over several windows pooled: the sum of what they cost over the sum of their turns.
 * Not a median per row: CPU moves between rows inside a window (an idle platform's pooled
 * connections close, and their backends' time passes from that database to the postmaster's
 * ended children), so medians taken row by row would pick different windows and no longer add up.
 */
export function pooledPerTurn(windows: readonly WindowCost[], pick: (w: WindowCost) => number | undefined): number {
  const turns = windows.reduce((sum, w) => sum + w.turns, 0);
  return turns === 0 ? Number.NaN : windows.reduce((sum, w) => sum + (pick(w) ?? 0) * w.turns, 0) / turns;
}
