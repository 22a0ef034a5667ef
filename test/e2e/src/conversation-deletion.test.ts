// Deleting a conversation reaches every store (docs/conversations.md): after DELETE, nothing of it
// is in any service's Postgres tables, in the run-events stream, in Redis or in memory's search,
// while the tenant's other conversation and another tenant's conversation of the same id are
// untouched. The job survives a SIGKILL of the orchestrator, deleting twice is idempotent, an end
// user is erased across their conversations, and the retention sweep deletes idle conversations.
import { jetstreamManager } from '@nats-io/jetstream';
import { compositeKey, RUN_EVENTS_STREAM, RUN_EVENTS_SUBJECT_PREFIX } from '@platform/contracts';
import { connectNats, createLogger, createRedis, type Redis } from '@platform/service-kit';
import type { ManagedProcess } from '@platform/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  bootPlatform,
  startRunnerProcess,
  waitFor,
  waitForCatalog,
  type Caller,
  type SuitePlatform,
  type TurnJson,
} from './support.js';

const TENANT = 'del-tenant';
const OTHER = 'del-other-tenant';
const GONE = 'del-conv-a';
const KEPT = 'del-conv-b';
const EPHEMERAL = { tenant: 'del-retained', tier: 'ephemeral' };

interface Deletion {
  deletionId: string;
  conversationId: string;
  status: string;
  step: string;
  reason: string;
  counts: Record<string, number>;
  lastError: string | null;
}

let platform: SuitePlatform;
let runner: ManagedProcess;
let db: pg.Pool;
let redis: Redis;
const logger = createLogger({ service: 'deletion-test', level: 'silent' });

beforeAll(async () => {
  const tiers = { TENANT_TIERS: JSON.stringify({ ephemeral: { conversationRetentionSeconds: 1 } }) };
  platform = await bootPlatform('deletion', {
    env: {
      orchestrator: {
        ...tiers,
        RATE_LIMIT_TURNS_PER_MINUTE: '0',
        RUN_LEASE_MS: '1500',
        RECOVERY_INTERVAL_MS: '500',
        ERASURE_POLL_MS: '300',
        ERASURE_LEASE_MS: '1500',
        ERASURE_RETRY_MS: '300',
        RETENTION_SWEEP_MS: '500',
      },
      api: tiers,
      memory: tiers,
    },
  });
  runner = await startRunnerProcess(platform, 'gated-runner', 'test/e2e/src/fixtures/gated-runner.ts');
  await waitForCatalog(platform.apiUrl, ['archive_orders', 'working_memory_set']);
  db = new pg.Pool({ connectionString: platform.databaseUrl, max: 2 });
  redis = createRedis({ url: platform.redisUrl, name: 'deletion-test', logger });
});
afterAll(async () => {
  redis?.disconnect();
  await db?.end();
  await runner?.stop();
  await platform?.stop();
});

const send = async (tenant: Caller, conversation: string, content: string): Promise<TurnJson> => {
  const turn = await api<TurnJson>(platform, 'POST', `/v1/conversations/${conversation}/messages`, tenant, { content });
  expect(turn.status).toBe(200);
  return turn.body;
};
const count = async (sql: string, values: unknown[]): Promise<number> =>
  Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql}`, values)).rows[0]!.n);
const runIdsOf = async (tenant: string, conversation: string): Promise<string[]> =>
  (
    await db.query<{ run_id: string }>(
      'SELECT run_id FROM orchestrator.runs WHERE tenant_id = $1 AND conversation_id = $2',
      [tenant, conversation],
    )
  ).rows.map((r) => r.run_id);
const factsOf = async (tenant: string, object: string): Promise<Array<{ conversation_id: string | null }>> =>
  (
    await db.query<{ conversation_id: string | null }>(
      'SELECT conversation_id FROM memory.facts WHERE tenant_id = $1 AND object ILIKE $2',
      [tenant, `%${object}%`],
    )
  ).rows;

/** Deletes a conversation and waits for its job to complete. */
async function deleteConversation(tenant: Caller, conversation: string): Promise<Deletion> {
  const accepted = await api<Deletion>(platform, 'DELETE', `/v1/conversations/${conversation}`, tenant);
  expect(accepted.status).toBe(202);
  return waitFor(
    'the deletion to complete',
    async () => {
      const job = await api<Deletion>(
        platform,
        'GET',
        `/v1/conversation-deletions/${accepted.body.deletionId}`,
        tenant,
      );
      return job.body.status === 'completed' ? job.body : undefined;
    },
    30_000,
  );
}

/** The tables that hold rows of a conversation, read back by its tenant and conversation id (the test's own list, from the migrations). */
const BY_CONVERSATION = [
  'orchestrator.runs',
  'orchestrator.conversation_fences',
  'orchestrator.conversation_agents',
  'orchestrator.conversation_agent_pins',
  'orchestrator.conversations',
  'memory.conversations',
  'memory.messages',
  'memory.appends',
  'memory.ingested_runs',
  'memory.facts',
  'memory.fact_sources',
  'memory.episodes',
  'memory.working_memory',
  'agent_pool.entries',
];
/** The tables read back by the conversation's run ids. */
const BY_RUN = [
  'orchestrator.run_steps',
  'memory.working_memory (by run)',
  'agent_pool.entries (by run)',
  'orchestrator.idempotency_keys (by run)',
  'orchestrator.run_webhook_deliveries (by run)',
  'orchestrator.run_webhook_targets (by run)',
];

/** Every row of the conversation in every service's tables, by table. */
async function rowsOf(tenant: string, conversation: string, runIds: string[]): Promise<Record<string, number>> {
  const rows: Record<string, number> = {};
  for (const table of BY_CONVERSATION)
    rows[table] = await count(`${table} WHERE tenant_id = $1 AND conversation_id = $2`, [tenant, conversation]);
  rows['orchestrator.run_steps'] = await count('orchestrator.run_steps WHERE run_id = ANY($1::text[])', [runIds]);
  rows['memory.working_memory (by run)'] = await count('memory.working_memory WHERE run_id = ANY($1::text[])', [
    runIds,
  ]);
  rows['agent_pool.entries (by run)'] = await count('agent_pool.entries WHERE run_id = ANY($1::text[])', [runIds]);
  for (const table of ['idempotency_keys', 'run_webhook_deliveries', 'run_webhook_targets'])
    rows[`orchestrator.${table} (by run)`] = await count(`orchestrator.${table} WHERE run_id = ANY($1::text[])`, [
      runIds,
    ]);
  return rows;
}

/** The run-event subjects the stream holds, among these runs'. */
async function eventSubjectsOf(runIds: string[]): Promise<string[]> {
  const nc = await connectNats({ config: { NATS_URL: platform.natsUrl }, name: 'deletion-test', logger });
  try {
    const info = await (
      await jetstreamManager(nc)
    ).streams.info(RUN_EVENTS_STREAM, {
      subjects_filter: `${RUN_EVENTS_SUBJECT_PREFIX}.>`,
    });
    const subjects = Object.keys(info.state.subjects ?? {});
    return subjects.filter((s) => runIds.some((id) => s.endsWith(`.${id}`)));
  } finally {
    await nc.close();
  }
}

/** Redis keys naming the conversation (its encoded key) or one of its runs. */
async function redisKeysOf(tenant: string, conversation: string, runIds: string[]): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  const encoded = compositeKey(tenant, conversation);
  return found.filter((k) => k.includes(encoded) || runIds.some((id) => k.includes(id)));
}

const NOTHING = (runIds: string[]) => ({
  ...Object.fromEntries([...BY_CONVERSATION, ...BY_RUN].map((t) => [t, 0])),
  runs: runIds.length,
});

describe('deleting a conversation', () => {
  let goneRuns: string[];
  let keptRuns: string[];
  let otherRuns: string[];
  let deletion: Deletion;

  beforeAll(async () => {
    // The conversation to delete: a tool call, working memory, facts (one only it taught, one
    // the kept conversation taught too) and an approval left waiting.
    const noted = await send(
      TENANT,
      GONE,
      '[scenario:deletion-notes] I am allergic to peanuts. I prefer window seats.',
    );
    expect(noted.toolCalls.map((c) => c.name)).toEqual(['working_memory_set', 'calculator']);
    const gated = await send(
      TENANT,
      GONE,
      `[scenario:gated-archive] Archive the EMEA orders older than 90 days. (${GONE})`,
    );
    expect(gated.status).toBe('waiting');
    await send(TENANT, KEPT, '[scenario:memory-chat] I prefer window seats.');
    // Another tenant's conversation of the same id, with the same words.
    await send(OTHER, GONE, '[scenario:deletion-notes] I am allergic to peanuts. I prefer window seats.');
    await waitFor(
      'every fact to be learned',
      async () => {
        const shared = await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM memory.fact_sources s JOIN memory.facts f USING (tenant_id, fact_id)
         WHERE s.tenant_id = $1 AND f.object ILIKE '%window%'`,
          [TENANT],
        );
        const peanuts = await factsOf(TENANT, 'peanut');
        const other = await factsOf(OTHER, 'peanut');
        return Number(shared.rows[0]!.n) === 2 && peanuts.length > 0 && other.length > 0 ? true : undefined;
      },
      60_000,
    );
    goneRuns = await runIdsOf(TENANT, GONE);
    keptRuns = await runIdsOf(TENANT, KEPT);
    otherRuns = await runIdsOf(OTHER, GONE);
    expect(await count('agent_pool.entries WHERE tenant_id = $1 AND conversation_id = $2', [TENANT, GONE])).toBe(1);
    expect(await eventSubjectsOf(goneRuns)).toHaveLength(goneRuns.length);
    deletion = await deleteConversation(TENANT, GONE);
  }, 180_000);

  it('leaves nothing of it in any table, stream or Redis key', async () => {
    expect(deletion).toMatchObject({ conversationId: GONE, reason: 'request', step: 'orchestrator' });
    expect(deletion.counts).toMatchObject({ runs: goneRuns.length, poolEntriesCancelled: 1, factsUnlinked: 1 });
    expect({ ...(await rowsOf(TENANT, GONE, goneRuns)), runs: goneRuns.length }).toEqual(NOTHING(goneRuns));
    expect(await eventSubjectsOf(goneRuns)).toEqual([]);
    expect(await redisKeysOf(TENANT, GONE, goneRuns)).toEqual([]);
    expect(await api(platform, 'GET', '/v1/approvals', TENANT)).toMatchObject({ body: { approvals: [] } });
  });

  it('forgets what only it taught, keeps what another conversation taught too, and search finds nothing of it', async () => {
    expect(await factsOf(TENANT, 'peanut')).toEqual([]);
    expect(await factsOf(TENANT, 'window')).toEqual([{ conversation_id: KEPT }]);
    expect(await count('memory.recall_terms WHERE tenant_id = $1 AND term LIKE $2', [TENANT, 'peanut%'])).toBe(0);
    const found = await api<{ facts: Array<{ object: string }> }>(
      platform,
      'GET',
      '/v1/memory/facts?subject=user',
      TENANT,
    );
    expect(found.body.facts.map((f) => f.object).join(' ')).not.toMatch(/peanut/i);
  });

  it("leaves the tenant's other conversation and the other tenant's untouched", async () => {
    const kept = await rowsOf(TENANT, KEPT, keptRuns);
    expect(kept['orchestrator.runs']).toBe(keptRuns.length);
    expect(kept['memory.messages']).toBeGreaterThan(0);
    expect(await eventSubjectsOf(keptRuns)).toHaveLength(keptRuns.length);
    const other = await rowsOf(OTHER, GONE, otherRuns);
    expect(other['orchestrator.runs']).toBe(otherRuns.length);
    expect(other['memory.messages']).toBeGreaterThan(0);
    expect(await factsOf(OTHER, 'peanut')).not.toEqual([]);
    expect(await eventSubjectsOf(otherRuns)).toHaveLength(otherRuns.length);
  });

  it('is idempotent: deleting again returns the completed job', async () => {
    const again = await api<Deletion>(platform, 'DELETE', `/v1/conversations/${GONE}`, TENANT);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ deletionId: deletion.deletionId, status: 'completed' });
  });

  it("is not another tenant's to read", async () => {
    const job = await api(platform, 'GET', `/v1/conversation-deletions/${deletion.deletionId}`, OTHER);
    expect(job).toMatchObject({ status: 404, body: { error: { code: 'DELETION_NOT_FOUND' } } });
  });
});

describe('who may delete a conversation', () => {
  const TEAM = 'del-owners';
  const ALICE = { tenant: TEAM, subject: 'alice' };
  const BOB = { tenant: TEAM, subject: 'bob' };
  const DEVELOPER = { tenant: TEAM, subject: 'dana', roles: ['developer'] };
  const del = (caller: Caller, conversation: string) =>
    api<Deletion & { error?: { code: string } }>(platform, 'DELETE', `/v1/conversations/${conversation}`, caller);

  it("refuses a member another user's conversation: 404 while it is private, 403 once shared", async () => {
    await send(ALICE, 'alice-private', 'hello');
    expect(await del(BOB, 'alice-private')).toMatchObject({
      status: 404,
      body: { error: { code: 'CONVERSATION_NOT_FOUND' } },
    });
    const shared = await api(platform, 'PATCH', '/v1/conversations/alice-private', ALICE, { shared: true });
    expect(shared.status).toBe(200);
    expect(await del(BOB, 'alice-private')).toMatchObject({
      status: 403,
      body: { error: { code: 'CONVERSATION_DELETE_FORBIDDEN' } },
    });
    expect(await count('orchestrator.conversation_deletions WHERE tenant_id = $1', [TEAM])).toBe(0);
    expect(await runIdsOf(TEAM, 'alice-private')).toHaveLength(1);
  }, 60_000);

  it('lets the owner delete it, and again after it is gone (the same job), while it stays 404 to others', async () => {
    const first = await deleteConversation(ALICE, 'alice-private');
    expect(await runIdsOf(TEAM, 'alice-private')).toEqual([]);
    const again = await del(ALICE, 'alice-private');
    expect(again).toMatchObject({ status: 202, body: { deletionId: first.deletionId, status: 'completed' } });
    expect(await del(BOB, 'alice-private')).toMatchObject({ status: 404 });
  }, 60_000);

  it("lets a developer delete any member's conversation", async () => {
    await send(BOB, 'bob-private', 'hello');
    const done = await deleteConversation(DEVELOPER, 'bob-private');
    expect(done).toMatchObject({ conversationId: 'bob-private', status: 'completed' });
    expect(await runIdsOf(TEAM, 'bob-private')).toEqual([]);
  }, 60_000);
});

describe('a deletion interrupted by a crash', () => {
  it('fails a step while the agent pool is down, survives a SIGKILL of the orchestrator, and completes', async () => {
    await send(TENANT, 'del-crash', '[scenario:deletion-notes] I am allergic to shellfish.');
    const runIds = await runIdsOf(TENANT, 'del-crash');
    await platform.stopApp('agent-pool');
    const accepted = await api<Deletion>(platform, 'DELETE', '/v1/conversations/del-crash', TENANT);
    expect(accepted.status).toBe(202);
    const stuck = await waitFor('the agent-pool step to fail', async () => {
      const job = await api<Deletion>(
        platform,
        'GET',
        `/v1/conversation-deletions/${accepted.body.deletionId}`,
        TENANT,
      );
      return job.body.lastError ? job.body : undefined;
    });
    expect(stuck).toMatchObject({ status: 'pending', step: 'cancel_runs' });
    // A message to it meanwhile is refused.
    const refused = await api(platform, 'POST', '/v1/conversations/del-crash/messages', TENANT, { content: 'hello?' });
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'CONVERSATION_DELETING' } } });
    await platform.kill('orchestrator');
    await platform.start('agent-pool');
    await platform.start('orchestrator');
    const done = await waitFor(
      'the deletion to complete after the restart',
      async () => {
        const job = await api<Deletion>(
          platform,
          'GET',
          `/v1/conversation-deletions/${accepted.body.deletionId}`,
          TENANT,
        );
        return job.body.status === 'completed' ? job.body : undefined;
      },
      30_000,
    );
    expect(done.step).toBe('orchestrator');
    expect({ ...(await rowsOf(TENANT, 'del-crash', runIds)), runs: runIds.length }).toEqual(NOTHING(runIds));
    expect(await eventSubjectsOf(runIds)).toEqual([]);
  }, 120_000);
});

describe('erasing an end user', () => {
  const ERIN = { tenant: 'del-erasure', subject: 'erin' };
  const FRANK = { tenant: 'del-erasure', subject: 'frank' };

  it("deletes every conversation of theirs and no one else's; only admins may", async () => {
    await send(ERIN, 'erin-1', 'hello');
    await send(ERIN, 'erin-2', 'hello again');
    await send(FRANK, 'frank-1', 'hello');
    const member = await api(platform, 'POST', '/v1/end-users/erin/erasure', ERIN);
    expect(member.status).toBe(403);
    const erased = await api<{ deletions: Deletion[] }>(platform, 'POST', '/v1/end-users/erin/erasure', {
      tenant: 'del-erasure',
      roles: ['admin'],
    });
    expect(erased.status).toBe(202);
    expect(erased.body.deletions.map((d) => d.conversationId).sort()).toEqual(['erin-1', 'erin-2']);
    await waitFor('both deletions to complete', async () => {
      const left = await count(
        `orchestrator.conversation_deletions WHERE tenant_id = 'del-erasure' AND status <> 'completed'`,
        [],
      );
      return left === 0 ? true : undefined;
    });
    expect(await count(`orchestrator.runs WHERE tenant_id = 'del-erasure' AND subject = $1`, ['erin'])).toBe(0);
    expect(await count(`memory.messages WHERE tenant_id = 'del-erasure' AND conversation_id LIKE 'erin-%'`, [])).toBe(
      0,
    );
    expect(await runIdsOf('del-erasure', 'frank-1')).toHaveLength(1);
  }, 60_000);
});

describe('retention', () => {
  it('deletes a conversation of a tier with a retention period once it is idle longer than it', async () => {
    await send(EPHEMERAL, 'short-lived', 'hello');
    const runIds = await runIdsOf(EPHEMERAL.tenant, 'short-lived');
    expect(runIds).toHaveLength(1);
    const job = await waitFor(
      'the retention sweep to delete it',
      async () => {
        const { rows } = await db.query<{ status: string; reason: string }>(
          `SELECT status, reason FROM orchestrator.conversation_deletions WHERE tenant_id = $1 AND conversation_id = 'short-lived'`,
          [EPHEMERAL.tenant],
        );
        return rows[0]?.status === 'completed' ? rows[0] : undefined;
      },
      30_000,
    );
    expect(job.reason).toBe('retention');
    expect({ ...(await rowsOf(EPHEMERAL.tenant, 'short-lived', runIds)), runs: 1 }).toEqual(NOTHING(runIds));
    // The default tier keeps its conversations.
    expect(await runIdsOf(TENANT, KEPT)).not.toEqual([]);
  }, 60_000);
});
