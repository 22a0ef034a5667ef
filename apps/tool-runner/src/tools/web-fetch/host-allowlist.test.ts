import { describe, expect, it } from 'vitest';
import { findAllowingRule, HostPatternError, parseAllowlist, parseHostPattern } from './host-allowlist.js';

function allows(entries: string[], url: string): boolean {
  return findAllowingRule(parseAllowlist(entries), new URL(url)) !== undefined;
}

describe('allowlist entries', () => {
  it('normalizes hosts and reads ports', () => {
    expect(parseHostPattern('Docs.Example.COM')).toEqual({
      source: 'Docs.Example.COM',
      kind: 'exact',
      host: 'docs.example.com',
      port: undefined,
    });
    expect(parseHostPattern('*.example.com:8443')).toMatchObject({
      kind: 'subdomains',
      host: 'example.com',
      port: 8443,
    });
    expect(parseHostPattern('[::1]:8080')).toMatchObject({ kind: 'exact', host: '[::1]', port: 8080 });
    expect(parseHostPattern('*.bücher.de')).toMatchObject({ host: 'xn--bcher-kva.de' });
  });

  it.each([
    ['*', /'\*.domain'/],
    ['*example.com', /'\*.domain'/],
    ['*.', /not a host name/],
    ['*.com', /at least two labels/],
    ['*.localhost', /loopback/],
    ['*.10.0.0.1', /not IP addresses/],
    ['https://example.com', /not a host name/],
    ['example.com/path', /bare host/],
    ['user@example.com', /bare host/],
    ['example.com:0', /invalid port/],
    ['example.com:99999', /invalid port/],
    ['example.com:123456', /not a host name/],
    ['exa mple.com', /not a valid host name/],
    ['::1', /not a host name/],
  ])('refuses %s', (entry, message) => {
    expect(() => parseHostPattern(entry)).toThrow(HostPatternError);
    expect(() => parseHostPattern(entry)).toThrow(message);
  });
});

describe('matching', () => {
  it('matches an exact host on the default port of either scheme', () => {
    expect(allows(['example.com'], 'https://example.com/a')).toBe(true);
    expect(allows(['example.com'], 'http://EXAMPLE.com:80/a')).toBe(true);
    expect(allows(['example.com'], 'http://example.com./a')).toBe(true);
    expect(allows(['example.com'], 'https://www.example.com/')).toBe(false);
    expect(allows(['example.com'], 'https://example.com:8443/')).toBe(false);
    expect(allows(['example.com'], 'https://example.com.evil.net/')).toBe(false);
  });

  it('matches only the listed port when one is given', () => {
    expect(allows(['example.com:8080'], 'http://example.com:8080/')).toBe(true);
    expect(allows(['example.com:8080'], 'http://example.com/')).toBe(false);
    expect(allows(['example.com:443'], 'https://example.com/')).toBe(true);
  });

  it('matches subdomains at any depth, never the domain itself or look-alikes', () => {
    const rules = ['*.example.com'];
    expect(allows(rules, 'https://a.example.com/')).toBe(true);
    expect(allows(rules, 'https://a.b.EXAMPLE.com./')).toBe(true);
    expect(allows(rules, 'https://example.com/')).toBe(false);
    expect(allows(rules, 'https://badexample.com/')).toBe(false);
    expect(allows(rules, 'https://a.example.com.evil.net/')).toBe(false);
    expect(allows(rules, 'https://.example.com/')).toBe(false);
    expect(allows(rules, 'https://a.example.com:8443/')).toBe(false);
    expect(allows(['*.bücher.de'], 'https://shop.BÜCHER.de/')).toBe(true);
  });

  it('reaches loopback and IP addresses only when listed exactly', () => {
    expect(allows(['*.example.com', 'example.com'], 'http://localhost/')).toBe(false);
    expect(allows(['*.example.com'], 'http://127.0.0.1/')).toBe(false);
    expect(allows(['localhost:3000'], 'http://localhost:3000/')).toBe(true);
    expect(allows(['127.0.0.1:3000'], 'http://localhost:3000/')).toBe(false);
    // Other spellings of 127.0.0.1 are the same address after URL normalization.
    expect(allows(['127.0.0.1'], 'http://2130706433/')).toBe(true);
    expect(allows(['127.0.0.1'], 'http://0x7f.1/')).toBe(true);
    expect(allows(['example.com'], 'http://2130706433/')).toBe(false);
    expect(allows(['[::1]:8080'], 'http://[0:0::1]:8080/')).toBe(true);
  });

  it('never matches other schemes', () => {
    expect(allows(['example.com'], 'ftp://example.com/')).toBe(false);
    expect(allows(['example.com:21'], 'ftp://example.com/')).toBe(false);
  });
});
