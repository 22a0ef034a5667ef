import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileEgressAllowlist, EgressEnv } from './egress-env.js';
import { EgressGuard } from './egress-guard.js';

/** An https receiver on 127.0.0.1 whose certificate names `hooks.test` only (no IP address). */
let server: Server;
let port: number;
let cert: string;
const servernames: Array<string | false | null> = [];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'egress-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=hooks.test',
        '-addext',
        'subjectAltName=DNS:hooks.test',
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (_request, response) =>
      response.end('ok'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  server.on('secureConnection', (socket: TLSSocket) => servernames.push(socket.servername));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

const guard = () =>
  new EgressGuard({
    allowlist: compileEgressAllowlist(EgressEnv.parse({ EGRESS_ALLOW_CIDRS: '127.0.0.1/32' })),
    resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    ca: cert,
  });

describe('TLS through the pinned address', () => {
  it('sends the host name as SNI and verifies the certificate against it, not against the address connected to', async () => {
    const egress = guard();
    const response = await egress.fetch(`https://hooks.test:${port}/`);
    expect(await response.text()).toBe('ok');
    expect(servernames.at(-1)).toBe('hooks.test');
    await egress.close();
  });

  it('refuses a certificate that does not name the host, though the address is the same', async () => {
    const egress = guard();
    const error = await egress.fetch(`https://other.test:${port}/`).then(
      () => undefined,
      (e: unknown) => e as Error & { cause?: { code?: string } },
    );
    expect(error?.cause?.code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    await egress.close();
  });
});
