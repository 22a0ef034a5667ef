import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ManagedProcess, workspaceRoot } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import { describe, expect, it } from 'vitest';
import { startCredentialServer } from './server.js';
import {
  configFor,
  credentialTestClient,
  grantKeys,
  keyringJson,
  PLATFORM_TOKEN,
  platformMetadata,
  testLogger,
} from './test-support/credential-fixture.js';

/** Runs the credential service's real entry point (from source) and waits for it to exit. */
async function runMain(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const args = ['--conditions=@platform/source', '--import', 'tsx', path.join('apps', 'credential', 'src', 'main.ts')];
  const proc = ManagedProcess.start('credential', process.execPath, args, {
    cwd: workspaceRoot(),
    env: { ...process.env, OTEL_SDK_DISABLED: 'true', GRPC_PORT: '0', ...env },
  });
  const code = await proc.waitForExit();
  return { code, output: proc.recentOutput };
}

function fatalLine(output: string): string | undefined {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: string; msg: string })
    .find((line) => line.level === 'fatal')?.msg;
}

describe('credential main', () => {
  it('refuses to boot without grant keys or platform tokens, naming the variables', async () => {
    const { code, output } = await runMain({ CREDENTIAL_GRANT_PUBLIC_KEYS: '', CREDENTIAL_PLATFORM_TOKENS: 'short' });
    expect(code).toBe(1);
    expect(output).toMatch(/CREDENTIAL_GRANT_PUBLIC_KEYS: /);
    expect(output).toMatch(/CREDENTIAL_PLATFORM_TOKENS.*at least 32/);
  });

  it('refuses to boot with an unusable keyring, without echoing key material', async () => {
    const { jwks } = await grantKeys();
    const { code, output } = await runMain({
      CREDENTIAL_GRANT_PUBLIC_KEYS: jwks,
      CREDENTIAL_PLATFORM_TOKENS: PLATFORM_TOKEN,
      CREDENTIAL_KEYRING: '{"active":"k1","keys":{"k1":"SHORTKEYMATERIAL"}}',
    });
    expect(code).toBe(1);
    expect(fatalLine(output)).toMatch(/keyring key 'k1' must be the base64 of exactly 32 bytes/);
    expect(output).not.toContain('SHORTKEYMATERIAL');
  });

  it('refuses to boot when a stored row needs a key the keyring lacks, naming the key id', async () => {
    const { jwks } = await grantKeys();
    const url = await createSuiteDatabase('credential_main');
    const k1 = randomBytes(32).toString('base64');
    const env = {
      DATABASE_URL: url,
      CREDENTIAL_GRANT_PUBLIC_KEYS: jwks,
      CREDENTIAL_PLATFORM_TOKENS: PLATFORM_TOKEN,
      CREDENTIAL_REWRAP_INTERVAL_MS: '0',
    };
    // Boot once with k1 to migrate, and plant a row as the k1 keyring would have written it.
    const server = await startCredentialServer(
      await configFor(url, keyringJson(['k1'], 'k1', { k1 }), jwks),
      testLogger,
    );
    const client = await credentialTestClient(server.port);
    await client.rpc.saveCredential(
      {
        tenantId: 'acme',
        service: 'google',
        account: '',
        secretJson: '{}',
        expectedVersion: undefined,
        grant: '',
        callId: '',
        actor: undefined,
      },
      { metadata: platformMetadata() },
    );
    client.close();
    await server.stop();

    const { code, output } = await runMain({ ...env, CREDENTIAL_KEYRING: keyringJson(['k2']) });
    expect(code).toBe(1);
    expect(fatalLine(output)).toMatch(
      /lacks key-encryption key\(s\) that stored credentials need: 'k1' \(1 credentials\)/,
    );
  });
});
