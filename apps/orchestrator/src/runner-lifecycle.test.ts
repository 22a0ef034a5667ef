// The orchestrator's tool port against runner processes that come, go, crash and scale.
import path from 'node:path';
import type { ToolOutcome } from '@platform/agent-loop';
import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import { ManagedProcess, startNatsServer, workspaceRoot, type NatsServerHandle } from '@platform/testing';
import { ToolCatalog, ToolClient } from '@platform/tool-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RunnerToolPort } from './runner-tool-port.js';
import { ToolGate } from './tool-gate/tool-gate.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let server: NatsServerHandle;
let nc: NatsConnection;
let catalog: ToolCatalog;
let port: RunnerToolPort;
const processes: ManagedProcess[] = [];

async function startRunner(name: string, prefix = ''): Promise<ManagedProcess> {
  const script = path.join('apps', 'orchestrator', 'src', 'test-support', 'fixture-runner.ts');
  const proc = ManagedProcess.start(
    name,
    process.execPath,
    ['--conditions=@platform/source', '--import', 'tsx', script],
    {
      cwd: workspaceRoot(),
      env: { ...process.env, NATS_URL: server.url, RUNNER_NAME: name, TOOL_PREFIX: prefix, OTEL_SDK_DISABLED: 'true' },
    },
  );
  processes.push(proc);
  await proc.waitForOutput((out) => out.includes('"msg":"ready"'), 30_000);
  return proc;
}

const context = (ms = 5_000) => ({ runId: 'run_1', deadlineAt: Date.now() + ms, signal: new AbortController().signal });
const call = (name: string, args: Record<string, unknown> = {}, ms?: number): Promise<ToolOutcome> =>
  port.execute({ id: `call-${Math.random().toString(16).slice(2)}`, name, arguments: args }, context(ms));

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ servers: server.url, name: 'orchestrator-test', logger });
  // The catalog starts before any runner exists.
  catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 300, staleAfterMs: 0 });
  await catalog.refresh();
  port = new RunnerToolPort(new ToolGate({ catalog, client: new ToolClient({ nc, logger }) }), {
    tenantId: 'acme',
    conversationId: 'c1',
  });
});
afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.kill()));
  await catalog.refresh();
});
afterAll(async () => {
  await nc.close();
  await server.stop();
});

describe('runners coming and going', () => {
  it('discovers runners that start after the orchestrator, two at once', async () => {
    expect(port.list()).toEqual([]);
    await Promise.all([startRunner('runner-a', 'a_'), startRunner('runner-b', 'b_')]);
    await catalog.refresh();
    expect(port.list().map((t) => t.name)).toEqual(['a_sleepy', 'a_whoami', 'b_sleepy', 'b_whoami']);
    expect(catalog.get('a_whoami')?.runner).toBe('runner-a');
    expect(await call('b_whoami')).toMatchObject({ status: 'success' });
  });

  it('spreads calls over the replicas of a runner', async () => {
    const replicas = await Promise.all([startRunner('replicated'), startRunner('replicated')]);
    await catalog.refresh();
    expect(catalog.get('whoami')?.instances).toHaveLength(2);
    const pids = new Set<number>();
    for (let i = 0; i < 40; i++) {
      const outcome = await call('whoami');
      if (outcome.status === 'success') pids.add((JSON.parse(outcome.content) as { pid: number }).pid);
    }
    expect(pids).toEqual(new Set(replicas.map((r) => r.pid)));
  });

  it('answers a call whose runner dies mid-call with a timeout at the deadline', async () => {
    const runner = await startRunner('doomed');
    await catalog.refresh();
    const pending = call('sleepy', { ms: 30_000 }, 2_000);
    await new Promise((r) => setTimeout(r, 300));
    await runner.kill();
    expect(await pending).toMatchObject({ status: 'timeout', errorCode: 'TIMEOUT' });
  });

  it('serves again after its runner restarts', async () => {
    const first = await startRunner('phoenix');
    await catalog.refresh();
    expect(await call('whoami')).toMatchObject({ status: 'success' });
    await first.kill();
    // The server drops a dead client's subscriptions once it reads the closed socket, which on a
    // busy machine can come after the next request: that request reaches the dead subscription
    // and times out. From then on, calls fail fast.
    await vi.waitFor(
      async () =>
        expect(await call('whoami', {}, 500)).toMatchObject({ status: 'failed', errorCode: 'RUNNER_UNAVAILABLE' }),
      {
        timeout: 10_000,
        interval: 50,
      },
    );
    const second = await startRunner('phoenix');
    await catalog.refresh();
    const outcome = await call('whoami');
    expect(outcome.status).toBe('success');
    expect(outcome.status === 'success' && (JSON.parse(outcome.content) as { pid: number }).pid).toBe(second.pid);
  });
});
