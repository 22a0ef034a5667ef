import path from 'node:path';
import { ManagedProcess, workspaceRoot } from '@platform/testing';
import { describe, expect, it } from 'vitest';

/** Runs the agent pool's real entry point (from source) and waits for it to exit. */
async function runMain(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const args = ['--conditions=@platform/source', '--import', 'tsx', path.join('apps', 'agent-pool', 'src', 'main.ts')];
  const proc = ManagedProcess.start('agent-pool', process.execPath, args, {
    cwd: workspaceRoot(),
    env: { ...process.env, OTEL_SDK_DISABLED: 'true', ...env },
  });
  const code = await proc.waitForExit();
  return { code, output: proc.recentOutput };
}

describe('agent pool main', () => {
  it('refuses to boot with a bad variable, naming it', async () => {
    const { code, output } = await runMain({ MAX_LIVE_AGENTS_PER_TENANT: 'lots' });
    expect(code).toBe(1);
    expect(output).toMatch(/MAX_LIVE_AGENTS_PER_TENANT: /);
  });

  it('exits 1 with one fatal log line when its database is unreachable', async () => {
    const { code, output } = await runMain({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', GRPC_PORT: '0' });
    expect(code).toBe(1);
    const fatal = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; msg: string })
      .find((line) => line.level === 'fatal');
    expect(fatal?.msg).toMatch(/agent-pool failed to start/);
  });
});
