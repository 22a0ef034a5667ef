import { describe, expect, it } from 'vitest';
import { fireOutcome, summarizeTaskSpec } from './task-spec.js';

const asIs = (iso: string): string => iso;

describe('task specs in words', () => {
  it('describes schedules, one-time tasks and their instruction', () => {
    expect(
      summarizeTaskSpec(
        {
          trigger: { type: 'schedule', cron: '0 8 * * *', timeZone: 'Europe/Paris' },
          action: { instruction: 'Digest' },
        },
        asIs,
      ),
    ).toEqual({ trigger: 'cron 0 8 * * * (Europe/Paris)', instruction: 'Digest' });
    expect(summarizeTaskSpec({ trigger: { type: 'schedule', at: '2026-12-01T08:00:00Z' } }, asIs)).toEqual({
      trigger: 'once at 2026-12-01T08:00:00Z',
      instruction: '—',
    });
    expect(
      summarizeTaskSpec({ trigger: { type: 'event', source: 'gmail', eventType: 'email.received' } }, asIs).trigger,
    ).toBe('event gmail / email.received');
    expect(summarizeTaskSpec({ trigger: { type: 'schedule', intervalSeconds: 60 } }, asIs).trigger).toBe('every 60 s');
    expect(summarizeTaskSpec({ trigger: 'garbage' }, asIs).trigger).toBe('unknown');
  });

  it('says how a fire ended', () => {
    expect(fireOutcome({ error: { code: 'RUN_FAILED', message: 'model down' }, result: null })).toBe(
      'RUN_FAILED: model down',
    );
    expect(fireOutcome({ error: null, result: { status: 'completed', response: 'You have 2 emails' } })).toBe(
      'You have 2 emails',
    );
    expect(fireOutcome({ error: null, result: null })).toBe('—');
  });
});
