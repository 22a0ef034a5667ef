import { metrics } from '@opentelemetry/api';
import { DataPointType, MeterProvider, MetricReader, type GaugeMetricData } from '@opentelemetry/sdk-metrics';
import { createLogger, openServiceDatabase } from '@platform/service-kit';
import { createSuiteDatabase } from '@platform/testing/vitest';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolGauges } from './pool-gauges.js';
import { AGENT_POOL_SCHEMA } from './server.js';

class CollectingReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

const logger = createLogger({ service: 'agent-pool-test', level: 'silent' });
const reader = new CollectingReader();
let db: pg.Pool;
let gauges: PoolGauges;

async function gauge(name: string): Promise<Array<{ value: number; attributes: Record<string, unknown> }>> {
  const { resourceMetrics } = await reader.collect();
  const found = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  if (!found) return [];
  expect(found.dataPointType).toBe(DataPointType.GAUGE);
  return (found as GaugeMetricData).dataPoints.map((p) => ({ value: p.value, attributes: p.attributes }));
}

async function insert(id: string, status: string, expiresInMinutes: number, kind = 'agent'): Promise<void> {
  await db.query(
    `INSERT INTO entries (entry_id, tenant_id, conversation_id, call_id, agent_name, status, schema_version, arguments, source_kind, expires_at, kind, paused_from)
     VALUES ($1, 'acme', 'c1', $1, 'send_email', $2, 'v1', '{}', 'user', now() + make_interval(mins => $3), $4, CASE WHEN $2 = 'paused' THEN 'waiting_for_input' END)`,
    [id, status, expiresInMinutes, kind],
  );
}

beforeAll(async () => {
  metrics.disable();
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  db = await openServiceDatabase({
    url: await createSuiteDatabase('agent_pool_gauges'),
    schema: AGENT_POOL_SCHEMA,
    migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
    applicationName: 'agent-pool-gauges-test',
    maxConnections: 2,
    logger,
  });
  gauges = new PoolGauges({ db, intervalMs: 60_000, logger });
});

afterAll(async () => {
  gauges?.stop();
  await db?.end();
  metrics.disable();
});

describe('agent-pool gauges', () => {
  it('count live entries by status and approvals about to expire, from the database', async () => {
    await insert('e1', 'waiting_for_input', 60);
    await insert('e2', 'waiting_for_approval', 5);
    await insert('e3', 'waiting_for_approval', 120);
    await insert('e4', 'waiting_for_approval', 3, 'approval_gate');
    await insert('e5', 'paused', 600);
    await db.query(`UPDATE entries SET status = 'completed', expires_at = NULL WHERE entry_id = 'e1'`);
    gauges.start();
    await gauges.refresh();
    const entries = await gauge('platform.agent_pool.entries');
    expect(entries).toEqual(
      expect.arrayContaining([
        { value: 2, attributes: { 'platform.agent.status': 'waiting_for_approval', 'platform.agent.kind': 'agent' } },
        {
          value: 1,
          attributes: { 'platform.agent.status': 'waiting_for_approval', 'platform.agent.kind': 'approval_gate' },
        },
        { value: 1, attributes: { 'platform.agent.status': 'paused', 'platform.agent.kind': 'agent' } },
      ]),
    );
    expect(entries).toHaveLength(3);
    expect(await gauge('platform.agent_pool.approvals.expiring')).toEqual([{ value: 2, attributes: {} }]);
  });
});
