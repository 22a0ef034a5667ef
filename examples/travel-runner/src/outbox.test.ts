// The outbox alone: one file per call, whatever happens to Redis.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Outbox, type OutboxRecord } from './outbox.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'travel-outbox-unit-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const call = { tenantId: 'acme', conversationId: 'trip-1', callId: 'call-1:1' };
const email = { to: 'team@example.com', subject: 'NYC Trip', body: 'See you there.' };

describe('Outbox', () => {
  it('creates its directory and writes one JSON file per email', async () => {
    const outbox = new Outbox(path.join(root, 'nested', 'outbox'));
    const delivery = await outbox.deliver(email, call);
    expect(delivery.duplicate).toBe(false);
    expect(await readdir(outbox.dir)).toEqual([path.basename(delivery.file)]);
    const record = JSON.parse(await readFile(delivery.file, 'utf8')) as OutboxRecord;
    expect(record).toMatchObject({ ...email, ...call, messageId: delivery.messageId });
  });

  it('never writes a second file for the same call, even concurrently', async () => {
    const outbox = new Outbox(root);
    const deliveries = await Promise.all([
      outbox.deliver(email, call),
      outbox.deliver(email, call),
      outbox.deliver({ ...email, subject: 'Other' }, call),
    ]);
    expect(deliveries.filter((d) => !d.duplicate)).toHaveLength(1);
    expect(new Set(deliveries.map((d) => d.messageId)).size).toBe(1);
    expect(await readdir(root)).toHaveLength(1);
  });

  it('keeps the same call id of another conversation or tenant apart', async () => {
    const outbox = new Outbox(root);
    await outbox.deliver(email, call);
    await outbox.deliver(email, { ...call, conversationId: 'trip-2' });
    await outbox.deliver(email, { ...call, tenantId: 'globex' });
    expect(await readdir(root)).toHaveLength(3);
  });
});
