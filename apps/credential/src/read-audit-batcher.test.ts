import { createPgPool } from '@platform/service-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from './audit-log.js';
import { ReadAuditBatcher, type ReadAuditBatcherOptions } from './read-audit-batcher.js';
import { CREDENTIAL_SCHEMA } from './server.js';
import { startCredentialFixture, testLogger, type CredentialFixture } from './test-support/credential-fixture.js';

let fx: CredentialFixture;
let admin: pg.Client;
let pool: pg.Pool;

beforeAll(async () => {
  fx = await startCredentialFixture('credential_read_audit');
  admin = new pg.Client({ connectionString: fx.url });
  await admin.connect();
  await admin.query(`SET search_path TO ${CREDENTIAL_SCHEMA}`);
  pool = createPgPool({
    url: fx.url,
    applicationName: 'read-audit-test',
    searchPath: CREDENTIAL_SCHEMA,
    maxConnections: 2,
    logger: testLogger,
  });
});
afterAll(async () => {
  await pool.end();
  await admin.end();
  await fx.stop();
});

const entry = (runId: string, callId: string): AuditEntry => ({
  service: 'google',
  account: 'primary',
  action: 'get',
  outcome: 'ok',
  actorKind: 'grant',
  subject: '',
  tool: 'send_email',
  runId,
  callId,
});
const batcher = (options: Partial<ReadAuditBatcherOptions> = {}) =>
  new ReadAuditBatcher(pool, { durable: false, flushDelayMs: 5, maxQueuedRows: 1_000, logger: testLogger, ...options });
/** What is committed for a run, as the owner sees it: tenant and call id in id order. */
const committed = async (runId: string) =>
  (
    await admin.query<{ tenant_id: string; call_id: string }>(
      'SELECT tenant_id, call_id FROM audit_events WHERE run_id = $1 ORDER BY id',
      [runId],
    )
  ).rows.map((r) => `${r.tenant_id}/${r.call_id}`);
/** Makes every write of an outage run's rows fail until the returned function is called (as a database outage would). */
async function breakAppends(): Promise<() => Promise<void>> {
  await admin.query(`ALTER TABLE audit_events ADD CONSTRAINT test_outage CHECK (run_id NOT LIKE '%outage') NOT VALID`);
  return async () => void (await admin.query('ALTER TABLE audit_events DROP CONSTRAINT test_outage'));
}

describe('the read audit batcher', () => {
  it('answers before the row is written, then writes the rows of many reads and tenants in one statement', async () => {
    const audit = batcher({ flushDelayMs: 50 });
    await Promise.all(
      ['acme', 'globex', 'acme'].map((tenant, i) => audit.record(tenant, entry('run-batch', `call-${i}`))),
    );
    expect(await committed('run-batch')).toEqual([]);
    await audit.flush();
    expect((await committed('run-batch')).sort()).toEqual(['acme/call-0', 'acme/call-2', 'globex/call-1']);
    await audit.close();
  });

  it('in durable mode answers only once the row is committed', async () => {
    const audit = batcher({ durable: true, flushDelayMs: 10_000 });
    await audit.record('acme', entry('run-durable', 'call-1'));
    expect(await committed('run-durable')).toEqual(['acme/call-1']);
    await audit.close();
  });

  it('keeps rows through a failed write and writes them once the database takes them again', async () => {
    const audit = batcher({ flushDelayMs: 1 });
    const restore = await breakAppends();
    try {
      await audit.record('acme', entry('run-outage', 'call-1'));
      await expect(audit.flush()).rejects.toThrow(/test_outage/);
      await audit.record('acme', entry('run-outage', 'call-2'));
    } finally {
      await restore();
    }
    await expect
      .poll(() => committed('run-outage'), { timeout: 10_000, interval: 50 })
      .toEqual(['acme/call-1', 'acme/call-2']);
    await audit.close();
  });

  it('in durable mode fails the read whose row could not be written, and does not write it later', async () => {
    const audit = batcher({ durable: true });
    const restore = await breakAppends();
    try {
      await expect(audit.record('acme', entry('run-durable-outage', 'call-1'))).rejects.toThrow(/test_outage/);
    } finally {
      await restore();
    }
    await audit.record('acme', entry('run-durable-outage', 'call-2'));
    expect(await committed('run-durable-outage')).toEqual(['acme/call-2']);
    await audit.close();
  });

  it('makes a read wait for its row once the queue is full, and writes what is queued on close', async () => {
    const audit = batcher({ flushDelayMs: 60_000, maxQueuedRows: 2 });
    await audit.record('acme', entry('run-full', 'call-1'));
    await audit.record('acme', entry('run-full', 'call-2'));
    expect(await committed('run-full')).toEqual([]);
    await audit.record('acme', entry('run-full', 'call-3'));
    expect(await committed('run-full')).toEqual(['acme/call-1', 'acme/call-2', 'acme/call-3']);
    await audit.record('acme', entry('run-full', 'call-4'));
    await audit.close();
    expect(await committed('run-full')).toEqual(['acme/call-1', 'acme/call-2', 'acme/call-3', 'acme/call-4']);
  });
});
