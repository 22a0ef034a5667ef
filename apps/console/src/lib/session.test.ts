import { describe, expect, it } from 'vitest';
import { isReadOnly, loadSession, readClaims, saveSession, shownTenant } from './session.js';

const b64url = (value: unknown): string =>
  btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const jwt = (payload: Record<string, unknown>): string => `${b64url({ alg: 'HS256' })}.${b64url(payload)}.signature`;

class MemoryStorage implements Storage {
  private items = new Map<string, string>();
  get length(): number {
    return this.items.size;
  }
  clear(): void {
    this.items.clear();
  }
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  key(index: number): string | null {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
}

describe('readClaims', () => {
  it('takes the tenant from "tenant", else "sub", with roles and expiry', () => {
    expect(
      readClaims(jwt({ tenant: 'acme', sub: 'ann', roles: ['platform-operator', 7], exp: 2_000_000_000 })),
    ).toEqual({ tenant: 'acme', subject: 'ann', roles: ['platform-operator'], expiresAt: 2_000_000_000_000 });
    expect(readClaims(jwt({ sub: 'solo' }))).toMatchObject({ tenant: 'solo', roles: [] });
  });

  it('says what is wrong with what is not a usable token', () => {
    expect(() => readClaims('not a token')).toThrow('three parts');
    expect(() => readClaims('a.###.c')).toThrow('not readable JSON');
    expect(() => readClaims(jwt({ roles: [] }))).toThrow('names no tenant');
  });
});

describe('the session', () => {
  it('is kept in storage and forgotten on sign-out; an expired token signs out', () => {
    const storage = new MemoryStorage();
    const token = jwt({ tenant: 'acme', sub: 'ann', roles: ['platform-operator'] });
    saveSession(storage, { token, claims: readClaims(token), viewTenant: 'globex' });
    const loaded = loadSession(storage)!;
    expect(loaded.viewTenant).toBe('globex');
    expect(shownTenant(loaded)).toBe('globex');
    expect(isReadOnly(loaded)).toBe(true);
    saveSession(storage, undefined);
    expect(loadSession(storage)).toBeUndefined();
    storage.setItem('platform-console.token', jwt({ tenant: 'acme', exp: 1 }));
    expect(loadSession(storage)).toBeUndefined();
  });

  it("is not read-only for the token's own tenant", () => {
    const token = jwt({ tenant: 'acme' });
    expect(isReadOnly({ token, claims: readClaims(token) })).toBe(false);
    expect(isReadOnly({ token, claims: readClaims(token), viewTenant: 'acme' })).toBe(false);
  });
});
