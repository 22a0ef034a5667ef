import { createLogger } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { ToolBreakers, type Admission, type CallHealth } from './tool-breakers.js';

const logger = createLogger({ service: 'test', level: 'silent' });

function breakers(failureThreshold = 3, cooldownMs = 1_000) {
  let now = 0;
  const b = new ToolBreakers({ failureThreshold, cooldownMs, logger, now: () => now });
  /** Admits a call to `tool` and records how it went; what admit said. */
  const call = (tool: string, health: CallHealth): Admission => {
    const admission = b.admit(tool);
    if (admission.allowed) b.record(tool, health, admission);
    return admission;
  };
  return { b, call, advance: (ms: number) => (now += ms) };
}

describe('ToolBreakers', () => {
  it('opens after the threshold of consecutive failures, and only for that tool', () => {
    const { b, call } = breakers(3);
    call('slow', 'unhealthy');
    call('slow', 'unhealthy');
    expect(b.admit('slow')).toEqual({ allowed: true, trial: false });
    call('slow', 'unhealthy');
    expect(b.admit('slow')).toEqual({ allowed: false, retryInMs: 1_000 });
    expect(b.admit('other')).toEqual({ allowed: true, trial: false });
  });

  it("shows each tool's breaker: closed with its failures, open with the time left, then half-open", () => {
    const { b, call, advance } = breakers(2, 1_000);
    expect(b.view('slow')).toEqual({ state: 'closed', consecutiveFailures: 0, retryInMs: 0 });
    call('slow', 'unhealthy');
    expect(b.view('slow')).toEqual({ state: 'closed', consecutiveFailures: 1, retryInMs: 0 });
    call('slow', 'unhealthy');
    advance(400);
    expect(b.view('slow')).toEqual({ state: 'open', consecutiveFailures: 2, retryInMs: 600 });
    advance(600);
    expect(b.view('slow')).toEqual({ state: 'half_open', consecutiveFailures: 2, retryInMs: 0 });
    call('slow', 'healthy');
    expect(b.view('slow')).toEqual({ state: 'closed', consecutiveFailures: 0, retryInMs: 0 });
  });

  it('counts only consecutive failures: an answer in between starts the count again', () => {
    const { b, call } = breakers(3);
    call('flaky', 'unhealthy');
    call('flaky', 'unhealthy');
    call('flaky', 'healthy');
    call('flaky', 'unhealthy');
    call('flaky', 'unhealthy');
    expect(b.admit('flaky').allowed).toBe(true);
  });

  it('lets one trial call through after the cooldown: an answer closes it, a failure opens it again', () => {
    const { b, call, advance } = breakers(2, 1_000);
    call('t', 'unhealthy');
    call('t', 'unhealthy');
    advance(400);
    expect(b.admit('t')).toEqual({ allowed: false, retryInMs: 600 });
    advance(600);
    const trial = b.admit('t');
    expect(trial).toEqual({ allowed: true, trial: true });
    // While the trial runs, other calls are still refused.
    expect(b.admit('t').allowed).toBe(false);
    b.record('t', 'unhealthy', trial as Extract<Admission, { allowed: true }>);
    expect(b.admit('t')).toEqual({ allowed: false, retryInMs: 1_000 });
    advance(1_000);
    expect(call('t', 'healthy')).toEqual({ allowed: true, trial: true });
    expect(b.admit('t')).toEqual({ allowed: true, trial: false });
  });

  it('a trial that says nothing of the tool (neutral) leaves the next call a trial', () => {
    const { b, call, advance } = breakers(1, 100);
    call('t', 'unhealthy');
    advance(100);
    expect(call('t', 'neutral')).toEqual({ allowed: true, trial: true });
    expect(b.admit('t')).toEqual({ allowed: true, trial: true });
  });

  it('never opens with a threshold of 0 (off)', () => {
    const { b, call } = breakers(0);
    for (let i = 0; i < 10; i++) call('t', 'unhealthy');
    expect(b.admit('t')).toEqual({ allowed: true, trial: false });
  });
});
