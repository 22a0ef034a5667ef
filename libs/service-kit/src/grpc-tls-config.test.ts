import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServicePki, testCertificates } from '@platform/testing';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.js';
import { compileGrpcTransport, type GrpcTlsEnv } from './grpc-tls-config.js';

const settings = (files: Partial<GrpcTlsEnv> = {}): GrpcTlsEnv => ({
  GRPC_TLS_RELOAD_MS: 60_000,
  GRPC_INSECURE_PLAINTEXT: false,
  ...files,
});
const filesOf = async (name: string): Promise<Partial<GrpcTlsEnv>> => {
  const files = await testCertificates(name);
  return { GRPC_TLS_CA_FILE: files.caFile, GRPC_TLS_CERT_FILE: files.certFile, GRPC_TLS_KEY_FILE: files.keyFile };
};
const problemsOf = (run: () => unknown): string[] => {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => `${p.variable}: ${p.message}`);
    throw err;
  }
  return [];
};

describe('compileGrpcTransport', () => {
  it('requires the three files unless plaintext is asked for by name', () => {
    expect(problemsOf(() => compileGrpcTransport(settings()))).toEqual([
      expect.stringMatching(/^GRPC_TLS_CA_FILE: required/),
      expect.stringMatching(/^GRPC_TLS_CERT_FILE: required/),
      expect.stringMatching(/^GRPC_TLS_KEY_FILE: required/),
    ]);
    expect(compileGrpcTransport(settings({ GRPC_INSECURE_PLAINTEXT: true })).kind).toBe('plaintext');
  });

  it('reads the identity from the certificate', async () => {
    const transport = compileGrpcTransport(settings(await filesOf('orchestrator')));
    expect(transport).toMatchObject({
      kind: 'mtls',
      identity: { trustDomain: 'agent-platform', name: 'orchestrator' },
    });
  });

  it('refuses plaintext together with certificate files', async () => {
    const files = await filesOf('api');
    expect(problemsOf(() => compileGrpcTransport(settings({ ...files, GRPC_INSECURE_PLAINTEXT: true }))).length).toBe(
      3,
    );
  });

  it('names the file at fault: unreadable, not a certificate, issued by another CA', async () => {
    const own = await filesOf('api');
    expect(problemsOf(() => compileGrpcTransport(settings({ ...own, GRPC_TLS_KEY_FILE: '/no/such/key.pem' })))).toEqual(
      [expect.stringMatching(/^GRPC_TLS_KEY_FILE: cannot read '\/no\/such\/key.pem': ENOENT/)],
    );
    const dir = mkdtempSync(join(tmpdir(), 'tls-config-'));
    writeFileSync(join(dir, 'garbage.pem'), 'not a certificate');
    expect(
      problemsOf(() => compileGrpcTransport(settings({ ...own, GRPC_TLS_CERT_FILE: join(dir, 'garbage.pem') }))),
    ).toEqual([expect.stringMatching(/^GRPC_TLS_CERT_FILE: .* holds no PEM certificate/)]);
    const foreign = await (await createServicePki({ dir })).issue('api');
    expect(
      problemsOf(() =>
        compileGrpcTransport(
          settings({ ...own, GRPC_TLS_CERT_FILE: foreign.certFile, GRPC_TLS_KEY_FILE: foreign.keyFile }),
        ),
      ),
    ).toEqual([expect.stringMatching(/^GRPC_TLS_CERT_FILE: .* was not issued by the CA/)]);
  });
});
