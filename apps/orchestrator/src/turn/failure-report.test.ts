// Failed steps of a team's turn through the orchestrator's own parts: the delegation tool port
// (with a role's fallbackRole), the loop, and the failure report (log lines and the
// platform.failures counter, read from a real OpenTelemetry meter provider).
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type SumMetricData } from '@opentelemetry/sdk-metrics';
import {
  compileLoopConfig,
  ModelError,
  runAgentLoop,
  type AgentLoopResult,
  type ModelPort,
} from '@platform/agent-loop';
import { FakeClock, FakeTools, reply, ScriptedModel } from '@platform/agent-loop/testing';
import { createLogger } from '@platform/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrchestratorConfig } from '../config.js';
import type { RunRecord } from '../journal/run-records.js';
import { compileProfileRegistryOptions } from '../profile-options.js';
import { ProfileRegistry, readProfilesFile } from '../profiles.js';
import { claimedRun, finishedChild } from '../test-support/run-fixtures.js';
import type { ChildRuns, ChildTask } from '../teams/child-runs.js';
import { DelegationToolPort } from '../teams/delegation-tools.js';
import { reportLoopFailure } from './failure-report.js';

class CollectingReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}
const reader = new CollectingReader();
beforeAll(() => {
  metrics.disable();
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
});
afterAll(() => metrics.disable());

const dir = mkdtempSync(path.join(os.tmpdir(), 'failures-'));
function profilesFile(content: unknown): string {
  const target = path.join(dir, `${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(target, JSON.stringify(content));
  return target;
}
const TEAM = {
  defaultProfile: 'lead',
  profiles: [
    {
      name: 'lead',
      systemPrompt: 'Lead.',
      delegates: [
        { role: 'researcher', description: 'finds facts', fallbackRole: 'stand-in' },
        { role: 'solo', description: 'no stand-in' },
      ],
    },
    { name: 'researcher', systemPrompt: 'Research.' },
    { name: 'stand-in', systemPrompt: 'Stands in.' },
    { name: 'solo', systemPrompt: 'Alone.' },
  ],
};
const unused = (name: string): ModelPort => ({
  provider: 'test',
  model: name,
  complete: () => Promise.reject(new Error('unused')),
});
const registry = ProfileRegistry.fromOptions(
  compileProfileRegistryOptions(
    OrchestratorConfig.parse({ OPENAI_API_KEY: 'k', AGENT_PROFILES_FILE: profilesFile(TEAM) }),
  ),
  unused,
);

/** Log lines as JSON objects. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ service: 'test', level: 'info', destination }), lines };
}

/** Children: the researcher's and the solo's runs fail (their model is down), anyone else answers. */
function children(started: ChildTask[]): ChildRuns {
  const run = (task: ChildTask): Promise<RunRecord> => {
    started.push(task);
    const failing = task.role === 'researcher' || task.role === 'solo';
    return Promise.resolve(
      finishedChild(
        {
          runId: `child-${task.role}`,
          conversationId: `delegation:${task.role}`,
          profile: task.role,
          content: task.task,
        },
        failing ? 'failed' : 'completed',
        failing ? 'model down' : `${task.role}: facts`,
      ),
    );
  };
  return { run, markWaiting: () => Promise.resolve() } as unknown as ChildRuns;
}

async function failedTurn(): Promise<{
  result: AgentLoopResult;
  lines: Array<Record<string, unknown>>;
  started: ChildTask[];
}> {
  const { logger, lines } = capturedLogger();
  const clock = new FakeClock();
  const started: ChildTask[] = [];
  const parent = claimedRun('lead', 'find facts');
  const inner = new FakeTools(
    { slow: { takesMs: 60_000, run: () => ({ status: 'success', content: 'late' }) } },
    clock,
  );
  const tools = new DelegationToolPort(
    inner,
    children(started),
    registry,
    { maxDepth: 3, defaultTimeoutMs: 60_000, defaultTier: 'default' },
    {
      run: parent,
      delegates: registry.resolve('lead')!.delegates,
      events: () => undefined,
      handingOver: () => false,
    },
  );
  // The primary model answers 500 twice (a retry, then the profile's fallback model takes over), then recovers.
  const http500 = new ModelError('server', 'HTTP 500 from the provider', { status: 500 });
  const primary = new ScriptedModel([http500, http500, reply.text('done')], { provider: 'openai', model: 'primary' });
  const fallback = new ScriptedModel(
    [
      reply.calls(
        ['a', 'slow', {}],
        ['b', 'no_such_tool', {}],
        ['c', 'delegate_to_researcher', { task: 'facts please' }],
        ['d', 'delegate_to_solo', { task: 'alone' }],
      ),
    ],
    { provider: 'openai', model: 'backup' },
  );
  const result = await clock.settle(
    runAgentLoop(
      { runId: parent.runId, messages: [{ role: 'user', content: 'find facts' }] },
      {
        model: primary,
        fallbackModels: [fallback],
        tools,
        clock,
        config: compileLoopConfig({ toolTimeoutMs: 1_000, llmMaxRetries: 1, llmRetryJitter: 0 }),
        events: (event) => reportLoopFailure(logger, { runId: parent.runId, profile: parent.profile }, event),
      },
    ),
  );
  logger.flush();
  await new Promise((resolve) => setTimeout(resolve, 50));
  return { result, lines, started };
}

describe('failed steps of a run, classified', () => {
  it('records a model 500 with fallback, a tool timeout, an unknown tool and a reassigned delegation in the transcript, logs and metric', async () => {
    const { result, lines, started } = await failedTurn();
    expect(result.response).toBe('done');
    const first = result.transcript[0]!;
    expect(first.model).toMatchObject({ model: 'backup', fallbackUsed: true });
    expect(first.model.failures).toEqual([
      { class: 'llm', kind: 'server', severity: 'medium', recovery: 'retry' },
      { class: 'llm', kind: 'server', severity: 'medium', recovery: 'fallback' },
    ]);
    expect(first.tools.map((t) => [t.name, t.status, t.failures])).toEqual([
      ['slow', 'timeout', [{ class: 'tool', kind: 'timeout', severity: 'medium', recovery: 'none' }]],
      ['no_such_tool', 'invalid', [{ class: 'tool', kind: 'unknown_tool', severity: 'low', recovery: 'none' }]],
      // The researcher failed; the task went to its fallback role, which answered.
      [
        'delegate_to_researcher',
        'success',
        [{ class: 'coordination', kind: 'child_failed', severity: 'medium', recovery: 'reassign' }],
      ],
      // No fallback role: the failure stands.
      [
        'delegate_to_solo',
        'failed',
        [{ class: 'coordination', kind: 'child_failed', severity: 'medium', recovery: 'none' }],
      ],
    ]);
    expect(result.messages.find((m) => m.role === 'tool' && m.toolCallId === 'c')).toMatchObject({
      status: 'success',
      content: 'stand-in: facts',
    });
    expect(started.map((t) => [t.role, t.callId, t.reassignedFrom])).toEqual([
      ['researcher', 'c', undefined],
      ['solo', 'd', undefined],
      ['stand-in', 'c', 'researcher'],
    ]);

    const logged = lines
      .filter((l) => l['msg'] === 'run step failed')
      .map((l) => [l['failureClass'], l['kind'], l['severity'], l['recovery'], l['runId']]);
    expect(logged).toEqual(
      expect.arrayContaining([
        ['llm', 'server', 'medium', 'retry', 'run-1'],
        ['llm', 'server', 'medium', 'fallback', 'run-1'],
        ['tool', 'timeout', 'medium', 'none', 'run-1'],
        ['tool', 'unknown_tool', 'low', 'none', 'run-1'],
        ['coordination', 'child_failed', 'medium', 'reassign', 'run-1'],
        ['coordination', 'child_failed', 'medium', 'none', 'run-1'],
      ]),
    );
    expect(logged).toHaveLength(6);

    const { resourceMetrics } = await reader.collect();
    const counter = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'platform.failures') as SumMetricData | undefined;
    const points = (counter?.dataPoints ?? []).map((p) => [
      p.attributes['platform.failure.class'],
      p.attributes['platform.failure.kind'],
      p.attributes['platform.failure.recovery'],
      p.value,
    ]);
    expect(points).toEqual(
      expect.arrayContaining([
        ['llm', 'server', 'fallback', 1],
        ['tool', 'timeout', 'none', 1],
        ['coordination', 'child_failed', 'reassign', 1],
      ]),
    );
    // Labels are the taxonomy only: no tenant or run ids.
    for (const p of counter?.dataPoints ?? [])
      expect(Object.keys(p.attributes).sort()).toEqual([
        'platform.failure.class',
        'platform.failure.kind',
        'platform.failure.recovery',
        'platform.failure.severity',
      ]);
  });
});

describe('fallbackRole in the profiles file', () => {
  it('refuses a fallback role that names no profile, the role itself, or the delegating profile', () => {
    const bad = profilesFile({
      defaultProfile: 'lead',
      profiles: [
        {
          name: 'lead',
          systemPrompt: 'Lead.',
          delegates: [
            { role: 'a', description: 'x', fallbackRole: 'ghost' },
            { role: 'b', description: 'x', fallbackRole: 'b' },
            { role: 'c', description: 'x', fallbackRole: 'lead' },
          ],
        },
        { name: 'a', systemPrompt: 'A.' },
        { name: 'b', systemPrompt: 'B.' },
        { name: 'c', systemPrompt: 'C.' },
      ],
    });
    expect(() => readProfilesFile(bad)).toThrow(
      /delegates\.0\.fallbackRole: no profile named 'ghost'.*delegates\.1\.fallbackRole: the fallback role must differ.*delegates\.2\.fallbackRole: a profile cannot reassign a task to itself/,
    );
  });
});
