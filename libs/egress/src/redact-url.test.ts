import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactUrl, redactUrlsIn } from './redact-url.js';

describe('redactUrl', () => {
  it.each([
    [
      'https://alice:hunter2@hooks.example.com/a?token=s3cr3t&x=1#frag',
      'https://[redacted]@hooks.example.com/a?token=[redacted]&x=[redacted]',
    ],
    ['https://hooks.example.com/plain', 'https://hooks.example.com/plain'],
    ['http://bob@127.0.0.1:8080/', 'http://[redacted]@127.0.0.1:8080/'],
    ['no url at all hunter2', '[not a URL]'],
  ])('%s -> %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('keeps no password, user name or query value, whatever they are', () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9]{6,20}$/);
    fc.assert(
      fc.property(secret, secret, secret, (user, password, token) => {
        const text = `fetch failed for https://${user}:${password}@hooks.example.com/p?sig=${token} after 3 tries`;
        const redacted = redactUrlsIn(text);
        for (const s of [user, password, token]) expect(redacted).not.toContain(s);
        expect(redacted).toContain('hooks.example.com/p');
      }),
    );
  });
});
