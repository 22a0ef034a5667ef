import { describe, expect, it } from 'vitest';
import { assembleTurnInput, isTimeZone } from './turn-input.js';

const parts = {
  systemPrompt: 'You help.',
  now: new Date('2026-03-15T23:30:00Z'),
  capabilities: [],
  history: [],
  userMessage: 'hi',
};

describe('turn input', () => {
  it('tells IANA zones from other names, the same on a second look', () => {
    for (let look = 0; look < 2; look++) {
      expect(isTimeZone('Asia/Tokyo')).toBe(true);
      expect(isTimeZone('UTC')).toBe(true);
      expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
    }
  });

  it("puts the user's local time in the framework context, and UTC time for an unknown zone", () => {
    const system = (timeZone: string): string => String(assembleTurnInput({ ...parts, timeZone })[0]!.content);
    expect(system('Asia/Tokyo')).toContain('Monday, 16 March 2026');
    expect(system('Mars/Olympus_Mons')).toContain('2026-03-15T23:30:00.000Z');
  });
});
