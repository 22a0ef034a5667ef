// The client's retry policy for calls that got no answer (docs/tool-protocol.md, "Busy and
// retries"), driven by a scripted connection so each failure kind is exact.
import { NoRespondersError, TimeoutError } from '@nats-io/nats-core';
import type { SideEffect } from '@platform/contracts';
import { createLogger, type NatsConnection } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { mayRetryUnanswered } from './retry-policy.js';
import { ToolClient } from './tool-client.js';

const logger = createLogger({ service: 'retry-test', level: 'silent' });

/** A connection whose requests fail with `failures` in order, then answer success. */
function scripted(failures: Error[]): { nc: NatsConnection; attempts: () => number } {
  let attempts = 0;
  const nc = {
    request: async () => {
      const failure = failures[attempts++];
      if (failure) throw failure;
      const body = JSON.stringify({ status: 'success', output: 'ok' });
      return { data: new TextEncoder().encode(body), string: () => body };
    },
  } as unknown as NatsConnection;
  return { nc, attempts: () => attempts };
}

async function callWith(failures: Error[], sideEffect: SideEffect | undefined, dedupe?: boolean) {
  const { nc, attempts } = scripted(failures);
  const client = new ToolClient({ nc, logger, transportRetryDelayMs: 1 });
  const response = await client.call({
    toolName: 't',
    arguments: {},
    callId: 'call_1',
    tenantId: 'acme',
    conversationId: 'c',
    deadlineAt: Date.now() + 2_000,
    sideEffect,
    dedupe,
  });
  return { status: response.status, attempts: attempts() };
}

describe('mayRetryUnanswered', () => {
  it.each([
    ['no_responders', undefined, false, false],
    ['no_responders', 'none', false, true],
    ['no_responders', 'idempotent', false, true],
    ['no_responders', 'external', false, true],
    ['no_answer', undefined, true, false],
    ['no_answer', 'none', false, true],
    ['no_answer', 'idempotent', false, true],
    ['no_answer', 'external', false, false],
    ['no_answer', 'external', true, true],
  ] as const)('%s, side effect %s, dedupe %s: %s', (kind, sideEffect, dedupe, expected) => {
    expect(mayRetryUnanswered(kind, sideEffect, dedupe)).toBe(expected);
  });
});

describe('ToolClient transport retries', () => {
  const lost = (): Error => new Error('connection lost');

  it('never retries when the side effect is unknown', async () => {
    expect(await callWith([new NoRespondersError('platform.tool.t')], undefined)).toEqual({
      status: 'failed',
      attempts: 1,
    });
    expect(await callWith([lost()], undefined)).toEqual({ status: 'failed', attempts: 1 });
  });

  it('retries "no responders" briefly, then succeeds', async () => {
    expect(
      await callWith([new NoRespondersError('platform.tool.t'), new NoRespondersError('platform.tool.t')], 'none'),
    ).toEqual({ status: 'success', attempts: 3 });
  });

  it('gives up after its retries', async () => {
    const three = [1, 2, 3].map(() => new NoRespondersError('platform.tool.t'));
    expect(await callWith(three, 'idempotent')).toEqual({ status: 'failed', attempts: 3 });
  });

  it('does not repeat an external call that may have run, unless the runner dedupes', async () => {
    expect(await callWith([lost()], 'external')).toEqual({ status: 'failed', attempts: 1 });
    expect(await callWith([new TimeoutError()], 'external')).toEqual({ status: 'timeout', attempts: 1 });
    expect(await callWith([lost()], 'external', true)).toEqual({ status: 'success', attempts: 2 });
    expect(await callWith([lost()], 'idempotent')).toEqual({ status: 'success', attempts: 2 });
  });
});
