// Runs in flight through the real turn runner (its attempt step), against real Postgres, Redis and NATS: however
// many there are, their leases cost one renewal statement per interval and one timer, and once
// they end nothing is renewed any more. Each run is held at its first step (the pending-agent
// step answers only when the test lets it) and handed over at the end.
import { connectNats, createLogger, createRedis, type NatsConnection, type Redis } from '@platform/service-kit';
import { allocateSuiteRedis, sharedInfra } from '@platform/testing/vitest';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RunLeaseRenewal } from '../journal/run-lease-renewal.js';
import { RunRecords, type ClaimedRun } from '../journal/run-records.js';
import { ConversationLease } from '../ordering/conversation-lease.js';
import { LeaseHeartbeat, leaseRenewalIntervalMs } from '../ordering/lease-heartbeat.js';
import type { PendingAgentDecision } from '../agent-tools/pending-agents.js';
import type { RunnableAgent } from '../profiles.js';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { messageRun } from '../test-support/run-fixtures.js';
import { AdmissionStep } from './admission.js';
import { AgentResolutionStep } from './agent-resolution.js';
import { AttemptStep, type TurnAttempt } from './attempt.js';
import { PendingAgentToolsStep } from './pending-agent-tools.js';
import { TurnRunner, type TurnRunnerSteps } from './turn-runner.js';
import { TurnSteps, type TurnResult } from './turn-steps.js';

const logger = createLogger({ service: 'test', level: 'silent' });
const LEASE_MS = 600;
const IN_FLIGHT = 30;
let pool: pg.Pool;
let redis: Redis;
let nc: NatsConnection;
let records: RunRecords;
/** Lease renewals sent through `pool`: statements that extend `lease_until`. */
let renewals = 0;

beforeAll(async () => {
  pool = await openJournalDatabase('executor_leases', logger, 5);
  const query = pool.query.bind(pool);
  pool.query = ((...args: Parameters<typeof query>) => {
    const [first] = args as unknown[];
    const text = typeof first === 'string' ? first : ((first as { text?: string }).text ?? '');
    if (/SET lease_until = now\(\) \+/.test(text)) renewals++;
    return query(...args);
  }) as typeof pool.query;
  records = new RunRecords(pool);
  redis = createRedis({ url: await allocateSuiteRedis(), name: 'executor-leases-test', logger });
  nc = await connectNats({ servers: sharedInfra().natsUrl, name: 'executor-leases-test', logger });
});
afterAll(async () => {
  await nc.close();
  redis.disconnect();
  await pool.end();
});

const leaseUntil = async (runIds: string[]) =>
  (
    await pool.query<{ run_id: string; lease_until: Date }>(
      'SELECT run_id, lease_until FROM runs WHERE run_id = ANY($1)',
      [runIds],
    )
  ).rows.map((r) => r.lease_until.getTime());

describe('turn runner leases', () => {
  it(`renews ${IN_FLIGHT} runs in flight with one statement per interval and one timer, and stops when they end`, async () => {
    const owner = 'exec-o1';
    const leases = new ConversationLease(redis, owner, LEASE_MS);
    const held: Array<{ resolve: (decision: PendingAgentDecision) => void }> = [];
    const attempts = new AttemptStep({
      owner,
      records,
      heartbeat: new LeaseHeartbeat({
        runLeases: new RunLeaseRenewal(pool),
        conversationLeases: leases,
        owner,
        leaseMs: LEASE_MS,
        intervalMs: leaseRenewalIntervalMs(LEASE_MS),
        logger,
      }),
      nc,
      outage: { retryBackoffMs: 1_000, turnTimeoutMs: 60_000 },
      ended: () => undefined,
      logger,
    });
    const executor = new TurnRunner({
      attempt: attempts,
      prepare: TurnSteps.of<TurnAttempt>()
        .then(
          new AdmissionStep({
            maxAttempts: 5,
            logger,
          }),
        )
        .then(
          new AgentResolutionStep({
            agents: { forRun: () => Promise.resolve({ model: {} } as unknown as RunnableAgent) },
            logger,
          }),
        )
        // The run's first step waits until the test lets it answer.
        .then(
          new PendingAgentToolsStep({
            beforeLoop: () => new Promise<PendingAgentDecision>((resolve) => held.push({ resolve })),
          }),
        ),
      finish: TurnSteps.of<TurnResult>() as unknown as TurnRunnerSteps['finish'],
    });

    const intervals = vi.spyOn(globalThis, 'setInterval');
    const claimed: ClaimedRun[] = [];
    const executions: Array<Promise<unknown>> = [];
    for (let i = 0; i < IN_FLIGHT; i++) {
      const run = messageRun(`run_exec_${i}_${Date.now()}`, `exec-c${i}`);
      const lease = (await leases.acquire(run.tenantId, run.conversationId))!;
      const { claimed: one } = await records.admit(run, owner, LEASE_MS, lease.token);
      claimed.push(one!);
      executions.push(executor.execute(one!, lease));
    }
    const runIds = claimed.map((r) => r.runId);
    await expect.poll(() => held.length).toBe(IN_FLIGHT);
    // One replica-wide ticker, not a timer per run.
    expect(intervals).toHaveBeenCalledTimes(1);
    intervals.mockRestore();

    // Wait until every run's lease was renewed twice over (each renewal moves lease_until on).
    renewals = 0;
    const first = await leaseUntil(runIds);
    await expect
      .poll(async () => (await leaseUntil(runIds)).every((until, i) => until > first[i]! + LEASE_MS / 3), {
        timeout: 20_000,
        interval: 50,
      })
      .toBe(true);
    // One statement per tick for all the runs: a few ticks, far fewer statements than runs (one
    // timer per run renewing its own lease would have sent at least one per run per interval).
    expect(renewals).toBeGreaterThan(0);
    expect(renewals).toBeLessThan(IN_FLIGHT / 3);

    // The runs end (handed over): nothing is renewed any more.
    attempts.abandonAll('test over');
    for (const h of held)
      h.resolve({
        kind: 'answer',
        response: 'bye',
        pending: [],
        agents: { messages: [], results: [] },
      } as unknown as PendingAgentDecision);
    expect(await Promise.all(executions)).toEqual(Array(IN_FLIGHT).fill(undefined));
    renewals = 0;
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    expect(renewals).toBe(0);
  });
});
