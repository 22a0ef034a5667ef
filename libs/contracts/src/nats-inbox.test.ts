import { describe, expect, it } from 'vitest';
import { natsInboxPrefix } from './nats-inbox.js';

describe('natsInboxPrefix', () => {
  it("is the user's own token under _INBOX", () => {
    expect(natsInboxPrefix('orchestrator')).toBe('_INBOX.orchestrator');
    expect(natsInboxPrefix('event-publisher')).toBe('_INBOX.event-publisher');
    expect(natsInboxPrefix('team_a-runner2')).toBe('_INBOX.team_a-runner2');
  });

  it('is undefined for a name that is not one subject token (dots, wildcards, spaces, empty)', () => {
    for (const user of ['a.b', 'a*', '>', 'two words', '', 'x'.repeat(65)])
      expect(natsInboxPrefix(user)).toBeUndefined();
  });
});
