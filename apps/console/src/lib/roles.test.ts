import { describe, expect, it } from 'vitest';
import { roleAtLeast, roleFromClaims } from './roles.js';

describe('tenant roles in the console', () => {
  it('orders viewer < member < developer < admin', () => {
    expect(roleAtLeast('admin', 'developer')).toBe(true);
    expect(roleAtLeast('member', 'developer')).toBe(false);
    expect(roleAtLeast('viewer', 'viewer')).toBe(true);
  });

  it("reads the highest tenant role of a token's claim, member when it names none", () => {
    expect(roleFromClaims(['viewer', 'admin'])).toBe('admin');
    expect(roleFromClaims(['platform-operator'])).toBe('member');
    expect(roleFromClaims([])).toBe('member');
    expect(roleFromClaims(['viewer'])).toBe('viewer');
  });
});
