import path from 'node:path';
import { ManagedProcess, sharedServicePki, workspaceRoot } from '@platform/testing';
import { describe, expect, it } from 'vitest';

/** Runs the trigger service's real entry point (from source) and waits for it to exit. */
async function runMain(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const args = ['--conditions=@platform/source', '--import', 'tsx', path.join('apps', 'trigger', 'src', 'main.ts')];
  const proc = ManagedProcess.start('trigger', process.execPath, args, {
    cwd: workspaceRoot(),
    env: { ...process.env, OTEL_SDK_DISABLED: 'true', ...env },
  });
  const code = await proc.waitForExit();
  return { code, output: proc.recentOutput };
}

describe('trigger main', () => {
  it('refuses to boot with a bad variable, naming it', async () => {
    const { code, output } = await runMain({ GRPC_PORT: 'eighty' });
    expect(code).toBe(1);
    expect(output).toMatch(/GRPC_PORT: /);
  });

  it('refuses to boot without its certificate files unless plaintext is asked for by name', async () => {
    const { code, output } = await runMain({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', GRPC_PORT: '0' });
    expect(code).toBe(1);
    expect(output).toMatch(/GRPC_TLS_CA_FILE: required/);
    expect(output).toMatch(/GRPC_TLS_CERT_FILE: required/);
  });

  it('exits 1 with one fatal log line when its database is unreachable', async () => {
    const { code, output } = await runMain({
      ...(await (await sharedServicePki()).env('trigger')),
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      GRPC_PORT: '0',
    });
    expect(code).toBe(1);
    const fatal = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; msg: string })
      .find((line) => line.level === 'fatal');
    expect(fatal?.msg).toMatch(/trigger failed to start/);
  });
});
