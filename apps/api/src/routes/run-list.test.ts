import type { orchestratorV1 } from '@platform/proto';
import { errors, type PromiseClient } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { useOrchestratorEdgeApp } from '../test-support/orchestrator-edge-app.js';

// GET /v1/runs at the HTTP edge: query checks, the tenant from the token, operators' read-only
// Platform-Tenant. The orchestrator's ListRuns (filters, paging, tokens) has its own suite on a
// real Postgres (apps/orchestrator/src/listing), and test/e2e/src/platformctl.test.ts runs both.
const SECRET = 'run-list-test-secret-at-least-32-chars';
const asked: orchestratorV1.ListRunsRequest[] = [];
const item: orchestratorV1.RunListItem = {
  runId: 'run_1',
  conversationId: 'c1',
  status: 'completed',
  stopReason: 'final_answer',
  source: 'user',
  parentRunId: '',
  profile: 'default',
  createdAt: new Date('2026-06-01T00:00:00Z'),
  startedAt: new Date('2026-06-01T00:00:01Z'),
  finishedAt: undefined,
  traceId: '',
  protocol: 'chat_completions',
  turns: 2,
  toolCalls: 1,
  usage: { inputTokens: 5, outputTokens: 6, totalTokens: 11 },
};
const orchestrator = {
  listRuns: async (request: orchestratorV1.ListRunsRequest) => {
    asked.push(request);
    if (request.pageToken === 'tampered')
      throw errors.invalidArgument(
        'INVALID_PAGE_TOKEN',
        'page_token is not one ListRuns returned (altered or cut); start the listing again without it',
      );
    return {
      runs: request.tenantId === 'acme' ? [item] : [],
      nextPageToken: request.tenantId === 'acme' ? 'next' : '',
    };
  },
} as unknown as PromiseClient<orchestratorV1.OrchestratorServiceClient>;
const { inject, bearer } = useOrchestratorEdgeApp(SECRET, orchestrator);

async function get(
  url: string,
  claims: Record<string, unknown> = { tenant: 'acme' },
  headers: Record<string, string> = {},
) {
  return inject({ method: 'GET', url, headers: { authorization: await bearer(claims), ...headers } });
}

describe('GET /v1/runs', () => {
  it("lists the token tenant's runs with every filter passed on, and the next page token", async () => {
    const response = await get(
      '/v1/runs?conversationId=c1&status=failed,running&status=queued&stopReason=max_turns&tool=search&source=trigger&createdAfter=2026-06-01T00:00:00Z&createdBefore=2026-06-02T00:00:00%2B02:00&parentRunId=run_0&protocol=chat_completions&pageSize=10&pageToken=abc',
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      runs: [
        {
          runId: 'run_1',
          conversationId: 'c1',
          status: 'completed',
          stopReason: 'final_answer',
          source: 'user',
          parentRunId: null,
          profile: 'default',
          createdAt: '2026-06-01T00:00:00.000Z',
          startedAt: '2026-06-01T00:00:01.000Z',
          finishedAt: null,
          traceId: null,
          turns: 2,
          toolCalls: 1,
          usage: { inputTokens: 5, outputTokens: 6, totalTokens: 11 },
          replayOf: null,
          replayFromStep: null,
          protocol: 'chat_completions',
        },
      ],
      nextPageToken: 'next',
    });
    expect(asked.at(-1)).toEqual({
      tenantId: 'acme',
      conversationId: 'c1',
      statuses: ['failed', 'running', 'queued'],
      stopReason: 'max_turns',
      toolName: 'search',
      source: 'trigger',
      createdAfter: new Date('2026-06-01T00:00:00Z'),
      createdBefore: new Date('2026-06-01T22:00:00Z'),
      parentRunId: 'run_0',
      protocol: 'chat_completions',
      pageSize: 10,
      pageToken: 'abc',
    });
  });

  it('sends no filter and the default page size without a query', async () => {
    expect((await get('/v1/runs')).statusCode).toBe(200);
    expect(asked.at(-1)).toMatchObject({
      tenantId: 'acme',
      statuses: [],
      conversationId: '',
      pageSize: 0,
      pageToken: '',
      createdAfter: undefined,
    });
  });

  it('refuses a bad query with 400 INVALID_QUERY naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      ['pageSize=0', 'pageSize'],
      ['pageSize=201', 'pageSize'],
      ['pageSize=ten', 'pageSize'],
      ['status=done', 'status'],
      ['status=', 'status'],
      ['source=robot', 'source'],
      ['createdAfter=yesterday', 'createdAfter'],
      ['createdBefore=2026-06-01', 'createdBefore'],
      ['tool=', 'tool'],
      ['bogus=1', 'bogus'],
    ];
    for (const [query, parameter] of cases) {
      const response = await get(`/v1/runs?${query}`);
      const { error } = response.json<{ error: { code: string; message: string } }>();
      expect(response.statusCode, query).toBe(400);
      expect(error.code, query).toBe('INVALID_QUERY');
      expect(error.message, query).toMatch(new RegExp(parameter === 'bogus' ? 'bogus' : `^${parameter}:`));
    }
  });

  it("maps the orchestrator's refusal of a page token to 400 INVALID_PAGE_TOKEN", async () => {
    const response = await get('/v1/runs?pageToken=tampered');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      error: { code: 'INVALID_PAGE_TOKEN', message: expect.stringContaining('page_token') },
    });
  });

  it("scopes the listing by the token's tenant: another tenant sees only its own", async () => {
    expect((await get('/v1/runs', { tenant: 'globex' })).json()).toEqual({ runs: [], nextPageToken: null });
    expect(asked.at(-1)?.tenantId).toBe('globex');
  });

  it("lets an operator list another tenant's runs with Platform-Tenant, and nobody else", async () => {
    const operator = await get(
      '/v1/runs?status=failed',
      { tenant: 'ops', roles: ['ops-role'] },
      { 'platform-tenant': 'acme' },
    );
    expect(operator.statusCode).toBe(200);
    expect(asked.at(-1)).toMatchObject({ tenantId: 'acme', statuses: ['failed'] });
    const count = asked.length;
    const user = await get('/v1/runs', { tenant: 'globex', roles: ['viewer'] }, { 'platform-tenant': 'acme' });
    expect(user.statusCode).toBe(403);
    expect(asked).toHaveLength(count);
    const unauthenticated = await inject({ method: 'GET', url: '/v1/runs' });
    expect(unauthenticated.statusCode).toBe(401);
  });
});
