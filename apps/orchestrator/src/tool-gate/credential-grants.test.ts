import { CredentialGrantClaims } from '@platform/contracts';
import { connectNats, createLogger } from '@platform/service-kit';
import { startNatsServer } from '@platform/testing';
import { defineTool, serveRunner, ToolCatalog, ToolClient, type ToolCallInput } from '@platform/tool-sdk';
import { exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunnerToolPort } from '../runner-tool-port.js';
import { CredentialGrants } from './credential-grants.js';
import { ToolGate } from './tool-gate.js';

const logger = createLogger({ service: 'test', level: 'silent' });

async function keyPair() {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  return { publicKey, signingKeyJson: JSON.stringify({ ...(await exportJWK(privateKey)), kid: 'g1', alg: 'EdDSA' }) };
}

const request = {
  tenantId: 'acme',
  runId: 'run-1',
  callId: 'call-1',
  tool: 'send_email',
  services: ['google'],
  deadlineAt: 0,
};

describe('CredentialGrants', () => {
  it('signs a grant scoped to tenant, run, call, tool and the declared services, living until just after the deadline', async () => {
    const { publicKey, signingKeyJson } = await keyPair();
    const grants = await CredentialGrants.create({ signingKeyJson, maxTtlSeconds: 300, slackSeconds: 5 }, logger);
    const now = Date.now();
    const grant = await grants.forCall({ ...request, deadlineAt: now + 30_000 }, now);
    const { payload, protectedHeader } = await jwtVerify(grant!, publicKey, {
      issuer: 'platform-orchestrator',
      audience: 'platform-credential',
    });
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', kid: 'g1' });
    const claims = CredentialGrantClaims.parse(payload);
    expect(claims).toMatchObject({ tid: 'acme', run: 'run-1', call: 'call-1', tool: 'send_email', svc: ['google'] });
    expect(claims.exp - claims.iat).toBe(35);
  });

  it('caps the lifetime, and issues nothing for tools that declare no credentials', async () => {
    const { signingKeyJson } = await keyPair();
    const grants = await CredentialGrants.create({ signingKeyJson, maxTtlSeconds: 60, slackSeconds: 5 }, logger);
    const now = Date.now();
    const grant = await grants.forCall({ ...request, deadlineAt: now + 3_600_000 }, now);
    const claims = JSON.parse(Buffer.from(grant!.split('.')[1]!, 'base64url').toString()) as {
      iat: number;
      exp: number;
    };
    expect(claims.exp - claims.iat).toBe(60);
    expect(await grants.forCall({ ...request, services: [], deadlineAt: now + 1000 }, now)).toBeUndefined();
  });

  it('refuses a public or symmetric key as the signing key, and works without one (no grants)', async () => {
    const { publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const publicOnly = JSON.stringify({ ...(await exportJWK(publicKey)), kid: 'g1' });
    await expect(
      CredentialGrants.create({ signingKeyJson: publicOnly, maxTtlSeconds: 60, slackSeconds: 5 }, logger),
    ).rejects.toThrow(/private JWK/);
    await expect(
      CredentialGrants.create(
        { signingKeyJson: JSON.stringify({ kty: 'oct', k: 'AAAA', kid: 'h' }), maxTtlSeconds: 60, slackSeconds: 5 },
        logger,
      ),
    ).rejects.toThrow(/EdDSA|ES256/);
    await expect(
      CredentialGrants.create({ signingKeyJson: 'nope', maxTtlSeconds: 60, slackSeconds: 5 }, logger),
    ).rejects.toThrow(/CREDENTIAL_GRANT_SIGNING_KEY/);
    const none = await CredentialGrants.create(
      { signingKeyJson: undefined, maxTtlSeconds: 60, slackSeconds: 5 },
      logger,
    );
    expect(none.enabled).toBe(false);
    expect(await none.forCall({ ...request, deadlineAt: Date.now() + 1000 })).toBeUndefined();
  });

  it('sends each call of a tool that declares credentials its own grant, and none to other tools', async () => {
    const nats = await startNatsServer();
    const nc = await connectNats({ servers: nats.url, name: 'grants-test', logger });
    try {
      const handler = async () => 'ok';
      const tools = [
        defineTool({ name: 'mail', description: 'Sends mail.', input: z.object({}), credentials: ['google'], handler }),
        defineTool({ name: 'plain', description: 'Needs nothing.', input: z.object({}), handler }),
      ];
      const runner = await serveRunner({ nc, name: 'grant-tools', version: '1.0.0', tools, logger });
      const catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 200, staleAfterMs: 0 });
      await catalog.refresh();
      const sent: ToolCallInput[] = [];
      const client = new (class extends ToolClient {
        override call(input: ToolCallInput) {
          sent.push(input);
          return super.call(input);
        }
      })({ nc, logger });
      const { publicKey, signingKeyJson } = await keyPair();
      const grants = await CredentialGrants.create({ signingKeyJson, maxTtlSeconds: 300, slackSeconds: 5 }, logger);
      const port = new RunnerToolPort(new ToolGate({ catalog, client, grants }), {
        tenantId: 'acme',
        conversationId: 'c1',
      });
      const context = { runId: 'run-9', deadlineAt: Date.now() + 5_000, signal: new AbortController().signal };
      await port.execute({ id: 'm1', name: 'mail', arguments: {} }, context);
      await port.execute({ id: 'm2', name: 'mail', arguments: {} }, context);
      await port.execute({ id: 'p1', name: 'plain', arguments: {} }, context);
      expect(sent.map((s) => Boolean(s.credentialGrant))).toEqual([true, true, false]);
      const claims = await Promise.all(
        sent.slice(0, 2).map(async (s) => (await jwtVerify(s.credentialGrant!, publicKey)).payload),
      );
      expect(claims.map((c) => [c.tid, c.run, c.call, c.svc])).toEqual([
        ['acme', 'run-9', 'm1', ['google']],
        ['acme', 'run-9', 'm2', ['google']],
      ]);
      await runner.stop(100);
    } finally {
      await nc.close();
      await nats.stop();
    }
  });
});
