import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { removeScenarioDirs, scenarioDir } from './test-support/sim.js';

const APP_ROOT = fileURLToPath(new URL('..', import.meta.url));
const children: ChildProcess[] = [];

/** Runs src/main.ts the way a developer would (tsx, workspace sources), collecting its log lines. */
function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--conditions=@platform/source', '--import', 'tsx', 'src/main.ts'], {
    cwd: APP_ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: Array<Record<string, unknown>> = [];
  let output = '';
  let buffered = '';
  const waiters: Array<() => void> = [];
  child.stdout.on('data', (data: Buffer) => {
    output += data.toString();
    buffered += data.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const part of parts.filter(Boolean)) lines.push(JSON.parse(part) as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.on('data', (data: Buffer) => {
    output += data.toString();
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  async function waitForLine(msg: string): Promise<Record<string, unknown>> {
    for (;;) {
      const line = lines.find((l) => l.msg === msg);
      if (line) return line;
      if (child.exitCode !== null) throw new Error(`exited before "${msg}":\n${output}`);
      await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), exited]);
    }
  }
  return { child, exited, waitForLine, output: () => output };
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

afterAll(removeScenarioDirs);

describe('main', () => {
  it('logs a ready line with the actual port and stops cleanly on SIGTERM', async () => {
    const main = startMain({ LLM_SIM_PORT: '0' });
    const ready = await main.waitForLine('ready');
    expect(ready).toMatchObject({ service: 'llm-sim', level: 'info', host: '127.0.0.1', defaultScenario: 'demo' });
    expect(ready.port).toEqual(expect.any(Number));
    expect(ready.port).not.toBe(0);
    const health = await fetch(`http://127.0.0.1:${String(ready.port)}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });

    main.child.kill('SIGTERM');
    const [code] = await main.exited;
    expect(code).toBe(0);
    expect(main.output()).toContain('"msg":"stopped"');
  });

  it('fails startup naming the invalid scenario file', async () => {
    const dir = scenarioDir({ 'demo.json': { name: 'demo', steps: [{ content: '{{nope}}' }] } });
    const main = startMain({ LLM_SIM_PORT: '0', LLM_SIM_SCENARIOS_DIR: dir });
    const [code] = await main.exited;
    expect(code).toBe(1);
    expect(main.output()).toMatch(/startup failed: invalid scenario .*demo\.json/);
    expect(main.output()).toContain('unknown template {{nope}}');
  });

  it('fails startup naming an invalid variable', async () => {
    const main = startMain({ LLM_SIM_PORT: 'not-a-port' });
    const [code] = await main.exited;
    expect(code).toBe(1);
    expect(main.output()).toContain('LLM_SIM_PORT');
  });
});
