import type { orchestratorV1 } from '@platform/proto';
import { createLogger, PlatformError } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { orchestratorServiceImplementation } from './orchestrator-service.js';
import type { OrchestratorDependencies } from './orchestrator-dependencies.js';

// HandleMessage starts a new message's memory recall before the run is admitted (so the search
// overlaps admission, lease and claim), and only for messages that will run a turn.

const logger = createLogger({ service: 'test', level: 'silent' });
const ENDED = new PlatformError('unavailable', 'TEST_END', 'the test ends the wait here');

function service(
  overrides: { check?: () => Promise<void>; existingRun?: { runId: string; conversationId: string } } = {},
) {
  const events: unknown[] = [];
  const deps = {
    options: { defaultTier: 'free', maxConcurrentTurns: 10, idempotencyKeyTtlMs: 60_000 },
    intake: {
      idempotencyKeys: { find: () => Promise.resolve(undefined) },
      agents: {
        forMessage: () =>
          Promise.resolve({
            name: 'assistant',
            agent: { id: 'builtin:assistant', version: 0 },
            profile: { name: 'assistant' },
          }),
      },
      memoryRecall: { prefetch: (query: unknown) => events.push(['prefetch', query]) },
      multitask: { before: () => Promise.resolve(undefined), after: () => Promise.resolve() },
    },
    shouldProcess: { check: overrides.check ?? (() => Promise.resolve()) },
    records: { get: () => Promise.resolve(overrides.existingRun), latestRun: () => Promise.resolve(undefined) },
    queue: {
      waitForRun: () => Promise.reject(ENDED),
      admit: (admission: { runId: string }) => (events.push(['admit', admission.runId]), Promise.resolve(true)),
      kick: () => undefined,
    },
    // No webhook on these messages, none in the tenant's settings.
    webhooks: {
      checkUrl: (url: string) => Promise.resolve(url),
      recordTarget: () => Promise.resolve(),
      handlers: () => ({}),
    },
    calls: { a2aPush: { handlers: () => ({}) } },
    logger,
  } as unknown as OrchestratorDependencies;
  const impl = orchestratorServiceImplementation(deps);
  const handle = (request: Partial<orchestratorV1.HandleMessageRequest>) =>
    new Promise<unknown>((resolve) => {
      const call = {
        request: {
          tenantId: 'tenant-a',
          conversationId: 'conv-1',
          content: 'Which seat should I book?',
          runId: 'run-1',
          ...request,
        },
        on: () => undefined,
      };
      impl.handleMessage(call as never, (err) => resolve(err));
    });
  return { events, handle };
}

describe('HandleMessage and the recall prefetch', () => {
  it("starts a new message's recall before its run is admitted", async () => {
    const { events, handle } = service();
    await handle({});
    expect(events).toEqual([
      [
        'prefetch',
        { runId: 'run-1', tenantId: 'tenant-a', conversationId: 'conv-1', query: 'Which seat should I book?' },
      ],
      ['admit', 'run-1'],
    ]);
  });

  it('does not recall for a refused message, an approval decision or a retry attaching to its run', async () => {
    const refused = service({
      check: () =>
        Promise.reject(new PlatformError('resource_exhausted', 'RATE_LIMITED', 'slow down', { retryAfterSeconds: 1 })),
    });
    await refused.handle({});
    expect(refused.events).toEqual([]);

    const approval = service();
    await approval.handle({ approvalId: 'appr-1', decision: 'approve' });
    expect(approval.events).toEqual([['admit', 'run-1']]);

    const attach = service({ existingRun: { runId: 'run-1', conversationId: 'conv-1' } });
    await attach.handle({ attach: true });
    expect(attach.events).toEqual([]);
  });
});
