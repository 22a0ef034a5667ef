// Forwarding a child run's stored events to its parent's stream, against a real NATS JetStream:
// from the start for a new child, and from where an earlier attempt of the parent stopped.
import { RUN_EVENTS_STREAM, RUN_EVENTS_SUBJECT_PREFIX } from '@platform/contracts';
import { connectNats, createLogger, ensureStream, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunEventPublisher } from './run-event-publisher.js';
import { ChildEventForwarder, lastForwardedId } from './child-event-forwarder.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let server: NatsServerHandle;
let nc: NatsConnection;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ servers: server.url, name: 'forwarder-test', logger });
  await ensureStream(nc, { name: RUN_EVENTS_STREAM, subjects: [`${RUN_EVENTS_SUBJECT_PREFIX}.>`], maxAgeMs: 60_000 });
});
afterAll(async () => {
  await nc?.close();
  await server?.stop();
});

async function publisher(runId: string): Promise<RunEventPublisher> {
  return RunEventPublisher.open(nc, runId, { resumed: true, includeChunks: false, logger });
}

describe("forwarding a child run's events", () => {
  it("forwards a new child's events in order, and stops after its execution_end", async () => {
    const child = await publisher('child_fwd_1');
    const forwarded: Array<Record<string, unknown>> = [];
    const forwarder = new ChildEventForwarder(
      nc,
      'child_fwd_1',
      'booker',
      0,
      (_type, data) => forwarded.push(data),
      logger,
    );
    child.publish('execution_start', {});
    child.publish('message_chunk', { delta: 'x' });
    child.publish('tool_result', { name: 'book_slot', status: 'success' });
    child.publish('execution_end', { result: { response: 'booked' } });
    await child.flush();
    await forwarder.stop(10_000);
    expect(
      forwarded.map((f) => [
        f['childRunId'],
        f['role'],
        (f['event'] as { type: string; id: number }).type,
        (f['event'] as { id: number }).id,
      ]),
    ).toEqual([
      ['child_fwd_1', 'booker', 'execution_start', 1],
      ['child_fwd_1', 'booker', 'tool_result', 3],
      ['child_fwd_1', 'booker', 'execution_end', 4],
    ]);
  });

  it("finds what a parent's earlier attempt forwarded, so a resumed parent forwards only the rest", async () => {
    const child = await publisher('child_fwd_2');
    const parent = await publisher('run_fwd_parent');
    for (const type of ['execution_start', 'tool_call_start', 'tool_result', 'message_end', 'execution_end'] as const)
      child.publish(type, {});
    await child.flush();
    // The first attempt forwarded the child's events 1 and 2, then its process died.
    parent.publish('execution_start', {});
    parent.publish('child_run_event', {
      childRunId: 'child_fwd_2',
      role: 'archivist',
      event: { type: 'execution_start', id: 1 },
    });
    parent.publish('child_run_event', {
      childRunId: 'other_child',
      role: 'booker',
      event: { type: 'tool_result', id: 9 },
    });
    parent.publish('child_run_event', {
      childRunId: 'child_fwd_2',
      role: 'archivist',
      event: { type: 'tool_call_start', id: 2 },
    });
    parent.publish('state_change', { state: 'running' });
    await parent.flush();
    const afterId = await lastForwardedId(nc, 'run_fwd_parent', 'child_fwd_2');
    expect(afterId).toBe(2);
    expect(await lastForwardedId(nc, 'run_fwd_parent', 'never_forwarded')).toBe(0);
    expect(await lastForwardedId(nc, 'run_without_events', 'child_fwd_2')).toBe(0);

    const forwarded: number[] = [];
    const forwarder = new ChildEventForwarder(
      nc,
      'child_fwd_2',
      'archivist',
      afterId,
      (_type, data) => forwarded.push((data['event'] as { id: number }).id),
      logger,
    );
    await forwarder.stop(10_000);
    expect(forwarded).toEqual([3, 4, 5]);
  });
});
