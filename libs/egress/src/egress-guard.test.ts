import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileEgressAllowlist, EgressEnv } from './egress-env.js';
import { EgressGuard } from './egress-guard.js';
import type { HostResolver, ResolvedAddress } from './host-resolver.js';
import { egressRefusalOf, EgressRefusedError } from './refusal.js';

/** A local HTTP receiver that counts every TCP connection made to it, request or not. */
let receiver: Server;
let port: number;
let connections = 0;
const hosts: string[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    hosts.push(request.headers.host ?? '');
    response.statusCode = request.url === '/moved' ? 302 : 200;
    if (request.url === '/moved') response.setHeader('location', `http://127.0.0.1:${port}/inside`);
    response.end('ok');
  });
  receiver.on('connection', () => connections++);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  port = (receiver.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

const PUBLIC: ResolvedAddress = { address: '93.184.215.14', family: 4 };
const LOOPBACK: ResolvedAddress = { address: '127.0.0.1', family: 4 };

/** A resolver that answers each lookup with the next of `answers` (the last one again once used up), and counts lookups. */
function scripted(...answers: ResolvedAddress[][]): HostResolver & { lookups: string[] } {
  const lookups: string[] = [];
  const resolver = async (hostname: string) => {
    lookups.push(hostname);
    return answers[Math.min(lookups.length - 1, answers.length - 1)]!;
  };
  return Object.assign(resolver, { lookups });
}

function guardWith(
  resolve: HostResolver,
  allow: Partial<Record<'EGRESS_ALLOW_HOSTS' | 'EGRESS_ALLOW_CIDRS', string>> = {},
): EgressGuard {
  return new EgressGuard({ allowlist: compileEgressAllowlist(EgressEnv.parse(allow)), resolve });
}

async function refusal(promise: Promise<unknown>): Promise<EgressRefusedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  const refused = egressRefusalOf(error);
  expect(refused, `expected an egress refusal, got ${String(error)}`).toBeInstanceOf(EgressRefusedError);
  return refused!;
}

describe('EgressGuard', () => {
  it('refuses a name that resolves inside, and a name with any one inside address among public ones', async () => {
    expect((await refusal(guardWith(scripted([LOOPBACK])).checkUrl('https://hooks.example.com/'))).reason).toBe(
      'loopback',
    );
    expect(
      (
        await refusal(
          guardWith(scripted([PUBLIC, { address: '10.0.0.7', family: 4 }])).checkUrl('https://hooks.example.com/'),
        )
      ).reason,
    ).toBe('private');
    expect(
      (
        await refusal(
          guardWith(scripted([PUBLIC, { address: 'fd00:ec2::254', family: 6 }])).checkUrl('https://hooks.example.com/'),
        )
      ).reason,
    ).toBe('metadata');
    expect(await guardWith(scripted([PUBLIC])).checkUrl('https://hooks.example.com/x')).toBeInstanceOf(URL);
  });

  it('refuses a name that does not resolve, or resolves too slowly', async () => {
    const failing: HostResolver = () =>
      Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    expect((await refusal(guardWith(failing).checkUrl('https://nowhere.example/'))).reason).toBe('unresolved');
    expect((await refusal(guardWith(scripted([])).checkUrl('https://nowhere.example/'))).reason).toBe('unresolved');
    const never: HostResolver = () => new Promise(() => undefined);
    const slow = new EgressGuard({
      allowlist: compileEgressAllowlist(EgressEnv.parse({})),
      resolve: never,
      resolveTimeoutMs: 20,
    });
    expect((await refusal(slow.checkUrl('https://slow.example/'))).reason).toBe('unresolved');
  });

  it('a DNS rebind between the check and the connection does not reach loopback: the connection is vetted again and pinned', async () => {
    const resolver = scripted([PUBLIC], [LOOPBACK]);
    const guard = guardWith(resolver);
    const url = `http://rebind.example.com:${port}/hook`;
    await guard.checkUrl(url); // at creation: public
    const before = connections;
    const refused = await refusal(guard.fetch(url, { method: 'POST', body: '{}' })); // at connect: loopback
    expect(refused.reason).toBe('loopback');
    expect(connections).toBe(before);
    expect(resolver.lookups).toEqual(['rebind.example.com', 'rebind.example.com']);
    await guard.close();
  });

  it("connects to the vetted address itself (the system resolver is never asked) and sends the URL's host name", async () => {
    const resolver = scripted([LOOPBACK]);
    const guard = guardWith(resolver, { EGRESS_ALLOW_CIDRS: '127.0.0.1/32' });
    const response = await guard.fetch(`http://receiver.invalid:${port}/hook`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    await response.body?.cancel();
    expect(hosts.at(-1)).toBe(`receiver.invalid:${port}`);
    expect(resolver.lookups).toEqual(['receiver.invalid']);
    await guard.close();
  });

  it('vets address literals at connect time too, whoever built the URL', async () => {
    const guard = guardWith(scripted([PUBLIC]));
    const before = connections;
    for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '2130706433']) {
      expect((await refusal(guard.fetch(`http://${host}:${port}/`))).reason).toBe('loopback');
    }
    // The dispatcher alone, as a later caller might use it with its own client.
    const { request } = await import('undici');
    expect((await refusal(request(`http://127.0.0.1:${port}/`, { dispatcher: guard.dispatcher() }))).reason).toBe(
      'loopback',
    );
    expect(connections).toBe(before);
    await guard.close();
  });

  it('the allowlist opens exactly what it names', async () => {
    const byHost = guardWith(scripted([LOOPBACK]), { EGRESS_ALLOW_HOSTS: 'hooks.internal,*.svc.cluster.local' });
    await byHost.checkUrl('https://hooks.internal/');
    await byHost.checkUrl('https://receiver.team.svc.cluster.local/');
    expect((await refusal(byHost.checkUrl('https://other.internal/'))).reason).toBe('loopback');
    expect((await refusal(byHost.checkUrl('https://svc.cluster.local.evil.example/'))).reason).toBe('loopback');
    const byRange = guardWith(scripted([LOOPBACK]), { EGRESS_ALLOW_CIDRS: '127.0.0.1/32' });
    await byRange.checkUrl('https://[::ffff:127.0.0.1]/');
    await byRange.checkUrl('https://2130706433/');
    expect((await refusal(byRange.checkUrl('https://127.0.0.2/'))).reason).toBe('loopback');
    expect((await refusal(byRange.checkUrl('https://169.254.169.254/'))).reason).toBe('metadata');
    // An address literal listed as a host opens that literal, not the names that resolve to it.
    const byLiteral = guardWith(scripted([LOOPBACK]), { EGRESS_ALLOW_HOSTS: '127.0.0.1' });
    await byLiteral.checkUrl('https://127.0.0.1:8443/');
    expect((await refusal(byLiteral.checkUrl('https://points-inside.example.com/'))).reason).toBe('loopback');
    // An allowlisted range does not open userinfo or other schemes.
    expect((await refusal(byRange.checkUrl('https://u:p@127.0.0.1/'))).reason).toBe('userinfo');
  });

  it('never follows a redirect: a 3xx is answered as it is and its target is not reached', async () => {
    const guard = guardWith(scripted([LOOPBACK]), { EGRESS_ALLOW_HOSTS: 'receiver.invalid' });
    const response = await guard.fetch(`http://receiver.invalid:${port}/moved`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(302);
    await response.body?.cancel();
    expect(hosts.at(-1)).toBe(`receiver.invalid:${port}`);
    await guard.close();
  });

  it('refusals name the reason only, never the URL, its password or the resolved address', async () => {
    const refused = await refusal(
      guardWith(scripted([{ address: '10.1.2.3', family: 4 }])).checkUrl(
        'https://user:hunter2@hooks.example.com/?token=abc',
      ),
    );
    expect(refused.reason).toBe('userinfo');
    const inside = await refusal(
      guardWith(scripted([{ address: '10.1.2.3', family: 4 }])).checkUrl('https://hooks.example.com/?token=abc'),
    );
    for (const error of [refused, inside]) expect(error.message).not.toMatch(/hunter2|abc|10\.1\.2\.3|hooks\.example/);
  });

  it('refuses settings that are not host names or ranges, naming the variable', () => {
    expect(EgressEnv.safeParse({ EGRESS_ALLOW_CIDRS: '10.0.0.0/8,banana' }).error?.issues[0]?.path).toEqual([
      'EGRESS_ALLOW_CIDRS',
    ]);
    expect(EgressEnv.safeParse({ EGRESS_ALLOW_HOSTS: 'http://x' }).error?.issues[0]?.path).toEqual([
      'EGRESS_ALLOW_HOSTS',
    ]);
    expect(EgressEnv.parse({})).toEqual({ EGRESS_ALLOW_HOSTS: [], EGRESS_ALLOW_CIDRS: [] });
  });
});
