import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ModelPort, ToolCallContext, ToolPort } from '@platform/agent-loop';
import { describe, expect, it } from 'vitest';
import { OrchestratorConfig } from '../config.js';
import type { ClaimedRun, RunRecord } from '../journal/run-records.js';
import { compileProfileRegistryOptions } from '../profile-options.js';
import { ProfileRegistry, readProfilesFile } from '../profiles.js';
import { claimedRun, finishedChild } from '../test-support/run-fixtures.js';
import { childRunId, outcomeOfChild, type ChildRuns, type ChildTask } from './child-runs.js';
import { DelegationToolPort } from './delegation-tools.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'delegation-'));
function profilesFile(content: unknown): string {
  const target = path.join(dir, `${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(target, JSON.stringify(content));
  return target;
}
const model = (name: string): ModelPort => ({
  provider: 'test',
  model: name,
  complete: () => Promise.reject(new Error('unused')),
});
const TEAM = {
  defaultProfile: 'lead',
  profiles: [
    {
      name: 'lead',
      systemPrompt: 'Lead.',
      delegates: [
        { role: 'researcher', description: 'finds facts' },
        { role: 'secret', description: 'classified' },
      ],
    },
    {
      name: 'researcher',
      systemPrompt: 'Research.',
      delegates: [{ role: 'lead', description: 'the lead', timeoutMs: 5000 }],
    },
    { name: 'secret', systemPrompt: 'Secret.', access: { tenants: ['other'] } },
  ],
};
const registry = ProfileRegistry.fromOptions(
  compileProfileRegistryOptions(
    OrchestratorConfig.parse({ OPENAI_API_KEY: 'k', AGENT_PROFILES_FILE: profilesFile(TEAM) }),
  ),
  model,
);

const inner: ToolPort = {
  list: () => [{ name: 'calculator', description: 'math', parameters: { type: 'object' }, kind: 'tool' }],
  execute: () => Promise.resolve({ status: 'success', content: 'inner' }),
};

function run(profile: string, chain?: string[]): ClaimedRun {
  return claimedRun(profile, 'hi', chain ? { lineage: { parentRunId: 'run-0', parentCallId: 'call-0', chain } } : {});
}

function finished(status: RunRecord['status'], response: string): RunRecord {
  return finishedChild(
    { runId: 'child', conversationId: 'delegation:child', profile: 'researcher', content: 'task' },
    status,
    response,
  );
}

function port(runOf: ClaimedRun, answer: RunRecord = finished('completed', 'facts')) {
  const started: ChildTask[] = [];
  const children = { run: (task: ChildTask) => (started.push(task), Promise.resolve(answer)) } as unknown as ChildRuns;
  const profile = registry.resolve(runOf.profile)!;
  const tools = new DelegationToolPort(
    inner,
    children,
    registry,
    { maxDepth: 2, defaultTimeoutMs: 60_000, defaultTier: 'default' },
    {
      run: runOf,
      delegates: profile.delegates,
      events: () => undefined,
      handingOver: () => false,
    },
  );
  return { tools, started };
}
const context: ToolCallContext = {
  runId: 'run-1',
  deadlineAt: Date.now() + 60_000,
  signal: new AbortController().signal,
};

describe('delegation tools', () => {
  it('offers each role as a tool with its description and deadline next to the runner tools', () => {
    const { tools } = port(run('researcher', ['lead', 'researcher']));
    expect(tools.list().map((t) => t.name)).toEqual(['calculator', 'delegate_to_lead']);
    expect(tools.lookup('delegate_to_lead')).toMatchObject({
      description: 'Hand a task to the lead: the lead',
      timeoutMs: 5000,
      kind: 'agent',
    });
    expect(tools.lookup('calculator')?.name).toBe('calculator');
  });

  it("runs a call as a child task under the role and answers with the child's answer", async () => {
    const { tools, started } = port(run('lead'));
    const outcome = await tools.execute(
      { id: 'call-1', name: 'delegate_to_researcher', arguments: { task: 'find facts' } },
      context,
    );
    expect(outcome).toEqual({ status: 'success', content: 'facts' });
    expect(started).toEqual([expect.objectContaining({ callId: 'call-1', role: 'researcher', task: 'find facts' })]);
    expect(await tools.execute({ id: 'call-2', name: 'calculator', arguments: {} }, context)).toEqual({
      status: 'success',
      content: 'inner',
    });
  });

  it('refuses a role already in the chain (a loop), naming the chain, and starts nothing', async () => {
    const { tools, started } = port(run('researcher', ['lead', 'researcher']));
    const outcome = await tools.execute(
      { id: 'call-1', name: 'delegate_to_lead', arguments: { task: 'you do it' } },
      context,
    );
    expect(outcome).toMatchObject({ status: 'denied', errorCode: 'DELEGATION_LOOP' });
    expect(outcome.content).toContain('lead → researcher → lead');
    expect(started).toEqual([]);
  });

  it('refuses a delegation past the depth limit', async () => {
    const { tools, started } = port(run('lead', ['a', 'b', 'lead']));
    const outcome = await tools.execute(
      { id: 'call-1', name: 'delegate_to_researcher', arguments: { task: 'deeper' } },
      context,
    );
    expect(outcome).toMatchObject({ status: 'denied', errorCode: 'DELEGATION_DEPTH_EXCEEDED' });
    expect(started).toEqual([]);
  });

  it('refuses a call without a task, and a role the tenant may not use', async () => {
    const { tools, started } = port(run('lead'));
    expect(
      await tools.execute({ id: 'call-1', name: 'delegate_to_researcher', arguments: { task: '  ' } }, context),
    ).toMatchObject({ status: 'invalid', errorCode: 'INVALID_ARGUMENTS' });
    expect(
      await tools.execute({ id: 'call-2', name: 'delegate_to_secret', arguments: { task: 'x' } }, context),
    ).toMatchObject({ status: 'failed', errorCode: 'ROLE_UNAVAILABLE' });
    expect(started).toEqual([]);
  });

  it('turns a child that failed or was cancelled into one clear result, and one that waits for the user into a waiting call', () => {
    expect(outcomeOfChild('researcher', 'delegate_to_researcher', finished('failed', 'model down'))).toMatchObject({
      status: 'failed',
      errorCode: 'CHILD_RUN_FAILED',
    });
    expect(outcomeOfChild('researcher', 'delegate_to_researcher', finished('cancelled', ''))).toMatchObject({
      status: 'cancelled',
      errorCode: 'CANCELLED',
    });
    const waiting = finished('waiting', 'Send it?');
    waiting.result!.pendingAgents = [
      {
        callId: 'c',
        agentName: 'send_mail',
        waitingFor: 'approval',
        prompt: 'Send it?',
        approval: { approvalId: 'a-1' },
      },
    ];
    expect(outcomeOfChild('researcher', 'delegate_to_researcher', waiting)).toEqual({
      status: 'waiting',
      content: 'Send it?',
      pending: {
        agentName: 'delegate_to_researcher',
        waitingFor: 'approval',
        prompt: 'Send it?',
        approval: { approvalId: 'a-1' },
      },
    });
  });

  it('derives the same child run id for the same parent call (a resumed parent finds its child), another for another tenant', () => {
    expect(childRunId('acme', 'run-1', 'call-1')).toBe(childRunId('acme', 'run-1', 'call-1'));
    expect(childRunId('acme', 'run-1', 'call-1')).not.toBe(childRunId('other', 'run-1', 'call-1'));
    expect(childRunId('acme', 'run-1', 'call-1')).toMatch(/^child_[0-9a-f]{40}$/);
  });
});

describe('roles in the profiles file', () => {
  it('refuses a role that names no profile, or is listed twice', () => {
    const bad = profilesFile({
      defaultProfile: 'lead',
      profiles: [
        {
          name: 'lead',
          systemPrompt: 'Lead.',
          delegates: [
            { role: 'ghost', description: 'x' },
            { role: 'lead', description: 'a' },
            { role: 'lead', description: 'b' },
          ],
        },
      ],
    });
    expect(() => readProfilesFile(bad)).toThrow(
      /profiles\.0\.delegates\.0\.role: no profile named 'ghost'.*profiles\.0\.delegates\.2\.role: role 'lead' is listed twice/,
    );
  });

  it('refuses a role whose name cannot be part of a tool name', () => {
    const bad = profilesFile({
      defaultProfile: 'a.b',
      profiles: [{ name: 'a.b', systemPrompt: 'x', delegates: [{ role: 'a.b', description: 'x' }] }],
    });
    expect(() => readProfilesFile(bad)).toThrow(/part of a tool name/);
  });
});
