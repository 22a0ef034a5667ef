import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAddress } from './address-class.js';
import { compileEgressAllowlist } from './egress-env.js';
import { EgressGuard } from './egress-guard.js';
import type { EgressRefusalReason } from './refusal.js';

/** A guard whose resolver must never be asked: every URL below is an address literal. */
const guard = new EgressGuard({
  allowlist: compileEgressAllowlist({ EGRESS_ALLOW_HOSTS: [], EGRESS_ALLOW_CIDRS: [] }),
  resolve: () => Promise.reject(new Error('an address literal must not be resolved')),
});

async function verdict(url: string): Promise<EgressRefusalReason | 'allowed'> {
  return guard.checkUrl(url).then(
    () => 'allowed' as const,
    (err: { reason: EgressRefusalReason }) => err.reason,
  );
}

describe('every spelling of an inside address is refused', () => {
  it.each([
    ['https://127.0.0.1:5432/', 'loopback'],
    ['https://2130706433/', 'loopback'],
    ['https://0x7f000001/', 'loopback'],
    ['https://0177.0.0.1/', 'loopback'],
    ['https://0x7f.0.0.1/', 'loopback'],
    ['https://127.1/', 'loopback'],
    ['https://127.0.0.1./', 'loopback'],
    ['https://127.255.255.254:6379/', 'loopback'],
    ['https://[::1]:4222/', 'loopback'],
    ['https://[0:0:0:0:0:0:0:1]/', 'loopback'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://[::ffff:7f00:1]/', 'loopback'],
    ['https://[::127.0.0.1]/', 'loopback'],
    ['https://[64:ff9b::127.0.0.1]/', 'loopback'],
    ['https://[::ffff:0:127.0.0.1]/', 'loopback'],
    ['https://localhost:50052/', 'loopback'],
    ['https://LOCALHOST./', 'loopback'],
    ['https://api.localhost/', 'loopback'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://0/', 'unspecified'],
    ['https://[::]/', 'unspecified'],
    ['https://10.0.0.1/', 'private'],
    ['https://172.16.5.4/', 'private'],
    ['https://192.168.1.1/', 'private'],
    ['https://[::ffff:10.1.2.3]/', 'private'],
    ['https://100.64.0.1/', 'carrier_grade_nat'],
    ['https://169.254.169.254/latest/meta-data/', 'metadata'],
    ['https://2852039166/', 'metadata'],
    ['https://[::ffff:169.254.169.254]/', 'metadata'],
    ['https://[fd00:ec2::254]/', 'metadata'],
    ['https://168.63.129.16/', 'metadata'],
    ['https://169.254.1.1/', 'link_local'],
    ['https://[fe80::1]/', 'link_local'],
    ['https://[fc00::1]/', 'unique_local'],
    ['https://[fd12:3456::1]/', 'unique_local'],
    ['https://224.0.0.1/', 'multicast'],
    ['https://[ff02::1]/', 'multicast'],
    ['https://255.255.255.255/', 'broadcast'],
    ['https://192.0.2.10/', 'reserved'],
    ['https://198.51.100.7/', 'reserved'],
    ['https://203.0.113.9/', 'reserved'],
    ['https://198.18.0.1/', 'reserved'],
    ['https://240.0.0.1/', 'reserved'],
    ['https://[2001:db8::1]/', 'reserved'],
    ['https://[2002:7f00:1::]/', 'non_unicast'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'non_unicast'],
    ['https://[64:ff9b:1::1]/', 'non_unicast'],
    ['https://[100::1]/', 'reserved'],
    ['https://alice:secret@example.com/', 'userinfo'],
    ['https://alice@example.com/', 'userinfo'],
    ['ftp://example.com/', 'scheme'],
    ['file:///etc/passwd', 'scheme'],
    ['not a url', 'invalid_url'],
  ])('%s is refused as %s', async (url, reason) => {
    expect(await verdict(url)).toBe(reason);
  });

  it.each([
    'https://8.8.8.8/',
    'https://1.1.1.1:8443/hook',
    'https://93.184.215.14/',
    'https://[2606:4700:4700::1111]/',
    'https://[::ffff:8.8.8.8]/',
    'https://[64:ff9b::8.8.8.8]/',
    'http://134744072/',
  ])('public %s is allowed', async (url) => {
    expect(await verdict(url)).toBe('allowed');
  });
});

/** The spellings WHATWG URL (and so fetch) accepts for one IPv4 address. */
function spellings(octets: number[]): string[] {
  const [a, b, c, d] = octets as [number, number, number, number];
  const value = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
  const hex = (n: number) => `0x${n.toString(16)}`;
  const oct = (n: number) => `0${n.toString(8)}`;
  const dotted = `${a}.${b}.${c}.${d}`;
  const v6tail = `${((a << 8) + b).toString(16)}:${((c << 8) + d).toString(16)}`;
  return [
    dotted,
    String(value),
    hex(value),
    `${hex(a)}.${hex(b)}.${hex(c)}.${hex(d)}`,
    `${oct(a)}.${oct(b)}.${oct(c)}.${oct(d)}`,
    `${a}.${(b << 16) + (c << 8) + d}`,
    `${a}.${b}.${(c << 8) + d}`,
    `${dotted}.`,
    `[::ffff:${dotted}]`,
    `[::ffff:${v6tail}]`,
    `[0:0:0:0:0:ffff:${dotted}]`,
    `[64:ff9b::${dotted}]`,
  ];
}

const octet = fc.integer({ min: 0, max: 255 });
const anyV4 = fc.tuple(octet, octet, octet, octet);
type Inside = [number[], EgressRefusalReason];
const inside = (reason: EgressRefusalReason, make: fc.Arbitrary<number[]>): fc.Arbitrary<Inside> =>
  make.map((octets): Inside => [octets, reason]);
/** An address inside a refused IPv4 range, with the range's reason. */
const insideV4: fc.Arbitrary<Inside> = fc.oneof(
  inside(
    'loopback',
    fc.tuple(octet, octet, octet).map(([b, c, d]) => [127, b, c, d]),
  ),
  inside(
    'private',
    fc.tuple(octet, octet, octet).map(([b, c, d]) => [10, b, c, d]),
  ),
  inside(
    'private',
    fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => [172, b, c, d]),
  ),
  inside(
    'private',
    fc.tuple(octet, octet).map(([c, d]) => [192, 168, c, d]),
  ),
  inside(
    'carrier_grade_nat',
    fc.tuple(fc.integer({ min: 64, max: 127 }), octet, octet).map(([b, c, d]) => [100, b, c, d]),
  ),
  inside(
    'link_local',
    fc
      .tuple(octet, octet)
      .filter(([c, d]) => !(c === 169 && d === 254))
      .map(([c, d]) => [169, 254, c, d]),
  ),
  inside(
    'unspecified',
    fc.tuple(octet, octet, octet).map(([b, c, d]) => [0, b, c, d]),
  ),
  inside('multicast', fc.tuple(fc.integer({ min: 224, max: 239 }), octet, octet, octet)),
  inside('reserved', fc.tuple(fc.integer({ min: 240, max: 254 }), octet, octet, octet)),
  inside('metadata', fc.constant([169, 254, 169, 254])),
);

describe('classification does not depend on the spelling', () => {
  it("every spelling of an address inside a refused range is refused, with that range's reason", async () => {
    await fc.assert(
      fc.asyncProperty(insideV4, fc.integer({ min: 0, max: 11 }), async ([octets, reason], pick) => {
        const spelling = spellings(octets)[pick]!;
        expect({ spelling, verdict: await verdict(`https://${spelling}/`) }).toEqual({ spelling, verdict: reason });
      }),
      { numRuns: 2_000 },
    );
  });

  it('every spelling of any IPv4 address gets the verdict of its dotted form', async () => {
    await fc.assert(
      fc.asyncProperty(anyV4, async (octets) => {
        const [dotted, ...others] = spellings(octets);
        const expected = classifyAddress(dotted!) ?? 'allowed';
        for (const spelling of others)
          expect({ spelling, verdict: await verdict(`https://${spelling}/`) }).toEqual({ spelling, verdict: expected });
      }),
      { numRuns: 1_000 },
    );
  });

  it('public unicast addresses are allowed in every spelling', async () => {
    const publicV4 = anyV4.filter((o) => classifyAddress(o.join('.')) === undefined);
    await fc.assert(
      fc.asyncProperty(publicV4, async (octets) => {
        for (const spelling of spellings(octets).slice(0, 11))
          expect(await verdict(`https://${spelling}/`)).toBe('allowed');
      }),
      { numRuns: 500 },
    );
  });

  it('strings that are not addresses are never public', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        if (classifyAddress(text) === undefined) expect(text).toMatch(/^[0-9a-fA-F:.]+$/);
      }),
    );
  });
});
