import { jetstreamManager } from '@nats-io/jetstream';
import {
  RUN_EVENTS_STREAM,
  RUN_EVENTS_SUBJECT_PREFIX,
  runEventsSubject,
  type RunEventEnvelope,
} from '@platform/contracts';
import { connectNats, createLogger, ensureStream, lastMessage, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RunEventFeed, RunEventsUnavailableError } from './run-event-feed.js';
import { RunEventReader } from './run-event-reader.js';

// The api reads every open stream's run events from one ordered consumer per replica (the feed),
// and only a read that needs what the stream stored before it began makes a consumer of its own.
// Issue 40: one consumer per streamed run cost nats-server and the api more than the runs did.

const logger = createLogger({ service: 'run-event-reader-test', level: 'silent' });
let server: NatsServerHandle;
let nc: NatsConnection;
let feed: RunEventFeed;
let reader: RunEventReader;
let runs = 0;
const stops: AbortController[] = [];

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ servers: server.url, name: 'api-test', logger });
  await ensureStream(nc, {
    name: RUN_EVENTS_STREAM,
    subjects: [`${RUN_EVENTS_SUBJECT_PREFIX}.>`],
    maxAgeMs: 60_000,
  });
  feed = await RunEventFeed.start(nc, logger, { restartDelayMs: 50 });
  reader = new RunEventReader(nc, feed, logger);
});
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
});
afterAll(async () => {
  await feed.stop();
  await nc.close();
  await server.stop();
});

const newRun = (): string => `run_reader_${++runs}`;

function signal(): AbortSignal {
  const stop = new AbortController();
  stops.push(stop);
  return stop.signal;
}

/** Publishes events as the orchestrator does (plain publishes the stream captures), and waits until they are stored. */
async function publish(runId: string, events: Array<Pick<RunEventEnvelope, 'id' | 'type'>>): Promise<void> {
  for (const event of events) nc.publish(runEventsSubject(runId), JSON.stringify({ runId, at: 1, data: {}, ...event }));
  await nc.flush();
  await storedThrough(runId, events.at(-1)!.id);
}

async function storedThrough(runId: string, id: number): Promise<void> {
  for (;;) {
    if ((await reader.lastId(runId)) >= id) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits until the feed has handled the run's last stored event: a read begun now finds it only in the stream. */
async function feedPassed(runId: string): Promise<void> {
  const last = await lastMessage(nc, RUN_EVENTS_STREAM, runEventsSubject(runId));
  while (feed.handled < last!.seq) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function collect(events: AsyncIterable<RunEventEnvelope>): Promise<Array<[number, string]>> {
  const seen: Array<[number, string]> = [];
  for await (const event of events) seen.push([event.id, event.type]);
  return seen;
}

async function consumers(): Promise<number> {
  return (await (await jetstreamManager(nc)).streams.info(RUN_EVENTS_STREAM)).state.consumer_count;
}

const RUN: Array<Pick<RunEventEnvelope, 'id' | 'type'>> = [
  { id: 1, type: 'state_change' },
  { id: 2, type: 'message_chunk' },
  { id: 3, type: 'message_chunk' },
  { id: 4, type: 'execution_end' },
];

describe('RunEventReader over the feed', () => {
  it('reads a new run begun after the read from the feed alone: every event once, in order, to execution_end, with no consumer per read', async () => {
    const before = await consumers();
    const ids = Array.from({ length: 30 }, newRun);
    const reads = ids.map((id) => collect(reader.read(id, 0, signal(), { fresh: true })));
    expect(feed.watching).toBe(30);
    expect(await consumers()).toBe(before);
    // The runs interleave in the stream; each read sees only its own.
    for (const event of RUN)
      for (const id of ids) nc.publish(runEventsSubject(id), JSON.stringify({ runId: id, at: 1, data: {}, ...event }));
    await nc.flush();
    for (const seen of await Promise.all(reads))
      expect(seen).toEqual([
        [1, 'state_change'],
        [2, 'message_chunk'],
        [3, 'message_chunk'],
        [4, 'execution_end'],
      ]);
    expect(feed.watching).toBe(0);
  });

  it('reads what the stream stored before the read began, then what comes after, none twice and none missed', async () => {
    const id = newRun();
    await publish(id, RUN.slice(0, 2));
    await feedPassed(id);
    const read = collect(reader.read(id, 0, signal()));
    await publish(id, RUN.slice(2));
    expect(await read).toEqual([
      [1, 'state_change'],
      [2, 'message_chunk'],
      [3, 'message_chunk'],
      [4, 'execution_end'],
    ]);
  });

  it('reads a finished run from the stream alone, skipping what the client saw (Last-Event-ID)', async () => {
    const id = newRun();
    await publish(id, RUN);
    await feedPassed(id);
    expect(await collect(reader.read(id, 2, signal()))).toEqual([
      [3, 'message_chunk'],
      [4, 'execution_end'],
    ]);
    expect(await reader.lastId(id)).toBe(4);
    expect(await reader.lastId(newRun())).toBe(0);
  });

  it('skips a malformed event and goes on', async () => {
    const id = newRun();
    const read = collect(reader.read(id, 0, signal(), { fresh: true }));
    nc.publish(runEventsSubject(id), 'not json');
    nc.publish(runEventsSubject(id), JSON.stringify({ id: 'one' }));
    await publish(id, RUN.slice(3));
    expect(await read).toEqual([[4, 'execution_end']]);
  });

  it('ends a read whose signal aborts, and lets go of its watch', async () => {
    const id = newRun();
    const stop = new AbortController();
    const read = collect(reader.read(id, 0, stop.signal, { fresh: true }));
    await publish(id, RUN.slice(0, 1));
    expect(feed.watching).toBe(1);
    stop.abort();
    expect(await read).toEqual([[1, 'state_change']]);
    expect(feed.watching).toBe(0);
    // An aborted signal before the read: nothing is watched.
    expect(await collect(reader.read(newRun(), 0, stop.signal, { fresh: true }))).toEqual([]);
    expect(feed.watching).toBe(0);
  });

  it("misses nothing when the server loses the feed's consumer (a NATS restart): the feed goes on from the next stored event", async () => {
    const id = newRun();
    const read = collect(reader.read(id, 0, signal(), { fresh: true }));
    await publish(id, RUN.slice(0, 2));
    await server.restart();
    // Published once the client is back (the orchestrator's publishes wait in its client meanwhile).
    for (;;) {
      try {
        await publish(id, RUN.slice(2));
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    expect(await read).toEqual([
      [1, 'state_change'],
      [2, 'message_chunk'],
      [3, 'message_chunk'],
      [4, 'execution_end'],
    ]);
  });
});

describe('RunEventFeed when it cannot read', () => {
  it('refuses new reads once stopped, so a streamed turn goes on without its events', async () => {
    const own = await connectNats({ servers: server.url, name: 'api-test-stopped', logger });
    try {
      const stopped = await RunEventFeed.start(own, logger);
      await stopped.stop();
      expect(() => stopped.watch(runEventsSubject(newRun()))).toThrow(RunEventsUnavailableError);
      const events = new RunEventReader(own, stopped, logger).read(newRun(), 0, signal(), { fresh: true });
      await expect(events.next()).rejects.toBeInstanceOf(RunEventsUnavailableError);
    } finally {
      await own.close();
    }
  });

  it('ends the open reads when it stops', async () => {
    const own = await connectNats({ servers: server.url, name: 'api-test-stopping', logger });
    try {
      const stopping = await RunEventFeed.start(own, logger);
      const id = newRun();
      const events = new RunEventReader(own, stopping, logger).read(id, 0, signal(), { fresh: true });
      await publish(id, RUN.slice(0, 1));
      expect((await events.next()).value).toMatchObject({ id: 1, type: 'state_change' });
      await stopping.stop();
      expect((await events.next()).done).toBe(true);
      expect(stopping.watching).toBe(0);
    } finally {
      await own.close();
    }
  });
});
