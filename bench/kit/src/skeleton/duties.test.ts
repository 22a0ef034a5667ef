import { describe, expect, it } from 'vitest';
import { parseDuties, SKELETON_DUTIES } from './duties.js';

describe('parseDuties', () => {
  it('reads all, none, nothing and comma-separated subsets', () => {
    expect(parseDuties('all')).toEqual([...SKELETON_DUTIES]);
    expect(parseDuties('none')).toEqual([]);
    expect(parseDuties(undefined)).toEqual([]);
    expect(parseDuties('  ')).toEqual([]);
    expect(parseDuties('lease, tracing')).toEqual(['lease', 'tracing']);
  });

  it('refuses a name it does not know, naming it and the known ones', () => {
    expect(() => parseDuties('lease,logging')).toThrow(
      /unknown duties: logging \(known: auth, lease, events, learning, tracing, or all\)/,
    );
  });
});
