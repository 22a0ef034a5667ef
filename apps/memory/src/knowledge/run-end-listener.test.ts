// The run-ended listener against a real NATS server: runs that end while a delete is in flight are
// dropped together by the next delete.
import { RUN_ENDED_SUBJECT_PREFIX, runEndedSubject } from '@platform/contracts';
import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RunEndListener, type RunsClearer } from './run-end-listener.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let nats: NatsServerHandle;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connectNats({ servers: nats.url, name: 'run-end-listener-test', logger });
});
afterAll(async () => {
  await nc.close();
  await nats.stop();
});

const notice = (tenantId: string, runId: string): string =>
  JSON.stringify({
    type: 'run.ended',
    tenantId,
    runId,
    conversationId: 'c',
    stopReason: 'final_answer',
    endedAt: new Date().toISOString(),
  });

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 25));
}

it('drops the runs that ended during a delete with one statement after it', async () => {
  const calls: Array<Array<{ tenantId: string; runId: string }>> = [];
  let releaseFirst!: () => void;
  const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
  const clearer: RunsClearer = {
    async clearRuns(keys) {
      calls.push([...keys]);
      if (calls.length === 1) await firstHeld;
      return keys.length;
    },
  };
  const listener = new RunEndListener(nc, clearer, logger);
  listener.start();
  // Subscribed after the listener on the same connection: a notice it has seen, the listener has been handed.
  let seen = 0;
  const observer = nc.subscribe(`${RUN_ENDED_SUBJECT_PREFIX}.*`, { callback: () => void seen++ });
  try {
    await nc.flush();
    nc.publish(runEndedSubject('acme'), notice('acme', 'run-1'));
    await until(() => calls.length === 1);
    // While run-1's delete is in flight, two more runs end (one malformed notice between them).
    nc.publish(runEndedSubject('acme'), notice('acme', 'run-2'));
    nc.publish(runEndedSubject('acme'), 'not json');
    nc.publish(runEndedSubject('globex'), notice('globex', 'run-3'));
    await until(() => seen === 4);
    await new Promise((r) => setImmediate(r)); // the listener's loop takes them in
    releaseFirst();
    await until(() => calls.flat().length === 3);
    expect(calls).toEqual([
      [{ tenantId: 'acme', runId: 'run-1' }],
      [
        { tenantId: 'acme', runId: 'run-2' },
        { tenantId: 'globex', runId: 'run-3' },
      ],
    ]);
  } finally {
    observer.unsubscribe();
    releaseFirst();
    await listener.stop();
  }
});
