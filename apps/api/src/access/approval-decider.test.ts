import type { agentPoolV1, agentsV1, conversationsV1, orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { useOrchestratorEdgeApp } from '../test-support/orchestrator-edge-app.js';

// Who may decide an approval (docs/access.md#approvals), at the HTTP edge with the services'
// answers given: the run's end user, an admin, or the roles the run's agent names instead; and
// who sees it at all (a member: the approvals of conversations they reach).
const SECRET = 'approval-decider-secret-at-least-32-chars';
const decided: string[] = [];

/** Runs by id: whose end user asked, under which agent version. */
const RUNS: Record<string, { subject: string; agentId: string; agentVersion: number }> = {
  run_alice: { subject: 'alice', agentId: '', agentVersion: 0 },
  run_trigger: { subject: '', agentId: '', agentVersion: 0 },
  run_four_eyes: { subject: 'alice', agentId: 'agt_00000000-0000-4000-8000-000000000001', agentVersion: 2 },
  run_private: { subject: 'alice', agentId: '', agentVersion: 0 },
};

const entry = (approvalId: string, runId: string): agentPoolV1.AgentEntry =>
  ({
    entryId: `e_${approvalId}`,
    tenantId: 'acme',
    conversationId: `conv-${approvalId}`,
    runId,
    callId: 'c1',
    agentName: 'payer',
    status: 'waiting_for_approval',
    pausedFrom: '',
    schemaVersion: '1',
    collectedJson: '{}',
    prompt: 'Pay?',
    missing: [],
    approval: {
      approvalId,
      agentName: 'payer',
      actionSummary: 'Pay 100 EUR',
      detailsJson: '{}',
      options: ['approve', 'cancel'],
      timeoutMinutes: 30,
      allowModification: false,
    },
    source: { kind: 'user', taskId: '' },
    resultJson: '',
    errorCode: '',
    errorMessage: '',
    step: 1,
    kind: 'agent',
  }) as unknown as agentPoolV1.AgentEntry;

const agentPool = {
  listPending: async (request: agentPoolV1.ListPendingRequest) => ({
    entries:
      request.tenantId === 'acme'
        ? [
            entry('appr_alice', 'run_alice'),
            entry('appr_trigger', 'run_trigger'),
            entry('appr_four_eyes', 'run_four_eyes'),
            entry('appr_private', 'run_private'),
          ]
        : [],
  }),
} as unknown as PromiseClient<agentPoolV1.AgentPoolServiceClient>;

/** Alice's conversation of `appr_private` is not shared: only she (and developers, admins) reach it; the others are shared. */
const conversations = {
  checkConversationAccess: async ({ caller, conversationId }: conversationsV1.CheckConversationAccessRequest) => ({
    allowed: conversationId !== 'conv-appr_private' || caller?.subject === 'alice',
  }),
} as unknown as PromiseClient<conversationsV1.ConversationServiceClient>;

const agents = {
  getAgentVersion: async (request: agentsV1.GetAgentVersionRequest) => ({
    version: {
      agentId: request.agent,
      version: request.version,
      specJson: JSON.stringify({ name: 'payer', instructions: 'Pay.', approverRoles: ['developer'] }),
    },
  }),
} as unknown as PromiseClient<agentsV1.AgentServiceClient>;

const orchestrator = {
  getRun: async (request: orchestratorV1.GetRunRequest) => ({
    runId: request.runId,
    conversationId: 'c',
    status: 'waiting',
    ...RUNS[request.runId],
  }),
  handleMessage: async (request: orchestratorV1.HandleMessageRequest) => {
    decided.push(`${request.approvalId}:${request.subject}`);
    return {
      runId: request.runId,
      status: 'completed',
      stopReason: 'final_answer',
      response: 'paid',
      turns: 1,
      toolCalls: [],
      durationMs: 1,
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    };
  },
} as unknown as PromiseClient<orchestratorV1.OrchestratorServiceClient>;

const { inject } = useOrchestratorEdgeApp(SECRET, orchestrator, { agentPool, agents, conversations });

async function decide(approvalId: string, sub: string, roles: string[] = []) {
  const token = await new SignJWT({ tenant: 'acme', roles })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(SECRET));
  const response = await inject({
    method: 'POST',
    url: `/v1/approvals/${approvalId}`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: { decision: 'approve' },
  });
  return { status: response.statusCode, body: response.json<{ error?: { code: string; details?: unknown } }>() };
}

describe('who decides an approval', () => {
  it("refuses another member the run's approval, naming admin; lets its own user decide, as the turn's subject", async () => {
    const bob = await decide('appr_alice', 'bob');
    expect(bob.status).toBe(403);
    expect(bob.body.error).toMatchObject({
      code: 'FORBIDDEN_ROLE',
      details: { requiredRole: 'admin', reason: 'not_the_runs_user' },
    });
    expect(decided).toEqual([]);
    expect((await decide('appr_alice', 'alice')).status).toBe(200);
    expect(decided.at(-1)).toBe('appr_alice:alice');
  });

  it('lets a tenant admin decide any approval, and refuses a viewer even its own', async () => {
    expect((await decide('appr_alice', 'carol', ['admin'])).status).toBe(200);
    expect(decided.at(-1)).toBe('appr_alice:carol');
    const viewer = await decide('appr_alice', 'alice', ['viewer']);
    expect(viewer.body.error).toMatchObject({ code: 'FORBIDDEN_ROLE', details: { requiredRole: 'member' } });
  });

  it("lets any member decide for a run that recorded no end user (a trigger's)", async () => {
    expect((await decide('appr_trigger', 'bob')).status).toBe(200);
  });

  it("follows the agent's approverRoles instead of the end user", async () => {
    const own = await decide('appr_four_eyes', 'alice');
    expect(own.status).toBe(403);
    expect(own.body.error).toMatchObject({
      code: 'FORBIDDEN_ROLE',
      details: { requiredRole: 'developer', approverRoles: ['developer'] },
    });
    expect((await decide('appr_four_eyes', 'dave', ['developer'])).status).toBe(200);
    expect((await decide('appr_four_eyes', 'erin', ['admin'])).status).toBe(200);
  });

  it("answers an approval of another user's private conversation 404 to a member, as one that does not exist", async () => {
    const bob = await decide('appr_private', 'bob');
    expect(bob).toMatchObject({ status: 404, body: { error: { code: 'APPROVAL_NOT_FOUND' } } });
    expect((await decide('appr_private', 'dave', ['developer'])).body.error).toMatchObject({
      code: 'FORBIDDEN_ROLE',
    });
    expect((await decide('appr_private', 'alice')).status).toBe(200);
  });

  it('answers an id the agent pool never makes (not a lowercase UUID) 404 without asking it', async () => {
    const token = await new SignJWT({ tenant: 'acme' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
    for (const id of ['EECCAAC6-7F7D-3CDD-BCE1-E9AAB2B2FBCA', 'appr_alice']) {
      const response = await inject({
        method: 'GET',
        url: `/v1/approvals/${id}`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ error: { code: 'APPROVAL_NOT_FOUND' } });
    }
  });

  it("answers another tenant's approval 404, before any role check", async () => {
    const token = await new SignJWT({ tenant: 'globex' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
    const response = await inject({
      method: 'POST',
      url: '/v1/approvals/appr_alice',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: { decision: 'approve' },
    });
    expect(response.statusCode).toBe(404);
  });
});
