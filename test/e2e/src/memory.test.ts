import { memoryContextItems, MEMORY_CONTEXT_OPEN, RunEnded, runEndedSubject } from '@platform/contracts';
import { connectNats, createLogger } from '@platform/service-kit';
import { sharedInfra } from '@platform/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, waitFor, type SuitePlatform } from './support.js';

// Long-term memory through the whole platform: a preference stated once is extracted off the
// turn's path, outlives the request view's trimming, and is recalled into the model's request
// when it matters; the memory API reads, cites and forgets it, per tenant.

const TENANT = 'memory-tenant';
const OTHER = 'memory-other-tenant';
/** Erasing memory is for a tenant's admins (docs/access.md#roles); end users' tokens are members. */
const ADMIN = { tenant: TENANT, roles: ['admin'] };
const OTHER_ADMIN = { tenant: OTHER, roles: ['admin'] };
const CONVERSATION = 'long-trip-chat';
const PREFERENCE = 'I prefer window seats on long flights.';

interface SimRequest {
  seq: number;
  scenario: string | null;
  structuredReply: string | null;
  body: { messages: Array<{ role: string; content?: unknown }> };
}
interface Turn {
  runId: string;
  status: string;
  response: string;
}
interface FactJson {
  factId: string;
  subject: string;
  predicate: string;
  object: string;
  kind: string;
  current: boolean;
  source: { conversationId: string | null; runId: string | null; messageSeq: number | null };
}
interface FactsPage {
  facts: FactJson[];
  nextPageToken: string | null;
}

let platform: SuitePlatform;

beforeAll(async () => {
  // A small context window: by turn 30 the first turn is long trimmed out of the request view.
  platform = await bootPlatform('memory_e2e', {
    env: { orchestrator: { CONTEXT_TOKEN_LIMIT: '2500', RATE_LIMIT_TURNS_PER_MINUTE: '0' } },
  });
});
afterAll(() => platform?.stop());

const textOf = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));

async function modelRequests(): Promise<SimRequest[]> {
  const response = await fetch(`${platform.llmSimUrl}/_sim/requests`);
  return ((await response.json()) as { requests: SimRequest[] }).requests;
}

async function say(content: string, tenant = TENANT): Promise<Turn> {
  const turn = await api<Turn>(platform, 'POST', `/v1/conversations/${CONVERSATION}/messages`, tenant, { content });
  expect(turn.status).toBe(200);
  expect(turn.body.status).toBe('completed');
  return turn.body;
}

const preferenceFacts = async (tenant = TENANT) =>
  (await api<FactsPage>(platform, 'GET', '/v1/memory/facts?subject=user', tenant)).body.facts.filter((f) =>
    f.object.includes('window seats'),
  );

describe('a preference from turn 1, recalled at turn 30', () => {
  let lastTurn: Turn;

  it('is extracted off the turn path into a fact with its provenance', async () => {
    const first = await say(`[scenario:memory-chat] ${PREFERENCE}`);
    const [fact] = await waitFor('the preference in long-term memory', async () => {
      const facts = await preferenceFacts();
      return facts.length > 0 ? facts : undefined;
    });
    expect(fact).toMatchObject({
      subject: 'user',
      kind: 'preference',
      current: true,
      source: { conversationId: CONVERSATION, runId: first.runId, messageSeq: 1 },
    });
  });

  it('reaches the model at turn 30 through recall although the request view no longer holds turn 1', async () => {
    // Turns 2..29 talk about something else (the plain scenario answers without recalled memory).
    for (let turn = 2; turn <= 29; turn++)
      await say(`[scenario:plain] Filler turn ${turn}: tell me a fact about the number ${turn * 7}.`);
    lastTurn = await say('[scenario:memory-chat] Which seat should I book for my long flights to Tokyo?');

    const request = (await modelRequests())
      .filter((r) => r.structuredReply === null && r.scenario === 'memory-chat')
      .at(-1);
    expect(request).toBeDefined();
    const messages = request?.body.messages ?? [];
    // Trimmed: turn 1's words are in no conversation message of the request...
    const conversation = messages.filter((m) => m.role !== 'system').map((m) => textOf(m.content));
    expect(conversation.some((text) => text.includes('Filler turn 29'))).toBe(true);
    expect(conversation.some((text) => text.includes('window seats'))).toBe(false);
    // ...but in the system prompt's long-term memory block.
    const system = messages
      .filter((m) => m.role === 'system')
      .map((m) => textOf(m.content))
      .join('\n');
    expect(system).toContain(MEMORY_CONTEXT_OPEN);
    expect(memoryContextItems(system).some((item) => item.includes('window seats on long flights'))).toBe(true);
    // And the answer uses it.
    expect(lastTurn.response).toContain('window seats on long flights');
  });

  it("says in the run's record what was injected and why", async () => {
    const run = await api<{
      result: {
        memoryRecall?: {
          status: string;
          searchMode: string;
          items: Array<{ kind: string; id: string; text: string; matchedBy: string[]; why: string }>;
          blockTokens: number;
          budgetTokens: number;
        };
      };
    }>(platform, 'GET', `/v1/runs/${lastTurn.runId}`, TENANT);
    const recall = run.body.result.memoryRecall;
    expect(recall).toMatchObject({ status: 'injected', budgetTokens: 400 });
    expect(recall?.blockTokens).toBeLessThanOrEqual(400);
    const [fact] = await preferenceFacts();
    const item = recall?.items.find((i) => i.id === fact?.factId);
    expect(item).toMatchObject({ kind: 'fact' });
    expect(item?.matchedBy.length).toBeGreaterThan(0);
    expect(item?.why).toBeTruthy();
  });
});

describe('the end of a run', () => {
  it("is announced after its execution_end, so memory drops the run's working memory", async () => {
    const nc = await connectNats({
      servers: platform.natsUrl,
      name: 'memory-e2e-run-end',
      logger: createLogger({ service: 'memory-e2e', level: 'silent' }),
    });
    try {
      const notices = nc.subscribe(runEndedSubject(TENANT));
      await nc.flush();
      const turn = await say('[scenario:plain] One more thing about the number 3.');
      for await (const msg of notices) {
        const notice = RunEnded.parse(JSON.parse(msg.string()));
        if (notice.runId !== turn.runId) continue;
        expect(notice).toMatchObject({ tenantId: TENANT, conversationId: CONVERSATION, stopReason: 'final_answer' });
        break;
      }
    } finally {
      await nc.drain();
    }
  });
});

// Recall embeds the query when vectors are on (pgvector installed): a slow embeddings endpoint
// makes memory's recall slower than the orchestrator's recall deadline.
describe.skipIf(!sharedInfra().pgvector)('a slow memory', () => {
  it('costs the turn its recall, never the turn', async () => {
    const arm = await fetch(`${platform.llmSimUrl}/_sim/embeddings/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ delayMs: 3_000, times: 'always' }),
    });
    expect(arm.status).toBe(200);
    try {
      const turn = await say('[scenario:memory-chat] Which seat should I book for my long flights to Osaka?');
      expect(turn.response).toContain('What I remember about you: (unavailable)');
      const run = await api<{ result: { memoryRecall?: { status: string; items: unknown[] } } }>(
        platform,
        'GET',
        `/v1/runs/${turn.runId}`,
        TENANT,
      );
      expect(run.body.result.memoryRecall).toMatchObject({ status: 'timed_out', items: [] });
    } finally {
      await fetch(`${platform.llmSimUrl}/_sim/embeddings/faults`, { method: 'DELETE' });
    }
  });
});

describe('the memory API on the real memory service', () => {
  it('answers a question with a citation of the fact', async () => {
    const [fact] = await preferenceFacts();
    const answer = await api<{ answered: boolean; answer: string; citations: { facts: FactJson[] } }>(
      platform,
      'POST',
      '/v1/memory/query',
      TENANT,
      { question: 'Which seats do I prefer on flights?' },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.answered).toBe(true);
    expect(answer.body.answer).toContain('window seats');
    expect(answer.body.citations.facts.map((f) => f.factId)).toContain(fact?.factId);
  });

  it("never shows or deletes another tenant's facts", async () => {
    const [fact] = await preferenceFacts();
    expect(await preferenceFacts(OTHER)).toEqual([]);
    const query = await api<{ answered: boolean; citations: { facts: FactJson[] } }>(
      platform,
      'POST',
      '/v1/memory/query',
      OTHER,
      { question: 'Which seats do I prefer on flights?' },
    );
    expect(query.body).toMatchObject({ answered: false, citations: { facts: [] } });
    const foreignDelete = await api(platform, 'DELETE', `/v1/memory/facts/${fact?.factId}`, OTHER_ADMIN);
    expect(foreignDelete.status).toBe(404);
    expect(foreignDelete.body).toMatchObject({ error: { code: 'FACT_NOT_FOUND' } });
    const forgotElsewhere = await api<{ factsDeleted: number }>(
      platform,
      'DELETE',
      '/v1/memory/subjects/user',
      OTHER_ADMIN,
    );
    expect(forgotElsewhere.body.factsDeleted).toBe(0);
    expect(await preferenceFacts()).toHaveLength(1);
  });

  it('deletes a fact, then forgets a subject entirely', async () => {
    const [fact] = await preferenceFacts();
    const byMember = await api(platform, 'DELETE', `/v1/memory/facts/${fact?.factId}`, TENANT);
    expect(byMember.status).toBe(403);
    expect(byMember.body).toMatchObject({ error: { code: 'FORBIDDEN_ROLE', details: { requiredRole: 'admin' } } });
    const deleted = await api<{ deleted: boolean; auditId: string }>(
      platform,
      'DELETE',
      `/v1/memory/facts/${fact?.factId}`,
      ADMIN,
    );
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted).toBe(true);
    expect(await preferenceFacts()).toEqual([]);
    expect((await api(platform, 'DELETE', `/v1/memory/facts/${fact?.factId}`, ADMIN)).status).toBe(404);

    await say('[scenario:plain] I live in Lisbon.');
    await waitFor('the new fact', async () =>
      (await api<FactsPage>(platform, 'GET', '/v1/memory/facts?subject=user', TENANT)).body.facts.some(
        (f) => f.object === 'Lisbon',
      )
        ? true
        : undefined,
    );
    const forgotten = await api<{ factsDeleted: number; auditId: string }>(
      platform,
      'DELETE',
      '/v1/memory/subjects/user',
      ADMIN,
    );
    expect(forgotten.status).toBe(200);
    expect(forgotten.body.factsDeleted).toBeGreaterThanOrEqual(1);
    expect(
      (await api<FactsPage>(platform, 'GET', '/v1/memory/facts?subject=user&includeSuperseded=true', TENANT)).body
        .facts,
    ).toEqual([]);
  });
});
