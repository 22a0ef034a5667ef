import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManagedProcess, startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'image-build-'));
const context = path.join(work, 'context');
const out = path.join(work, 'out');

/**
 * The Docker build context: the repository's files (tracked or new, not ignored) minus what
 * .dockerignore leaves out, so the copy has no node_modules, no dist, no Nx cache and no .git:
 * what `COPY . .` puts in the image's build stage.
 */
function copyBuildContext(): void {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && existsSync(path.join(repoRoot, file)));
  execFileSync('mkdir', ['-p', context]);
  execFileSync('tar', ['--null', '-T', '-', '-cf', path.join(work, 'context.tar')], { cwd: repoRoot, input: files.join('\0') });
  execFileSync('tar', ['-xf', path.join(work, 'context.tar'), '-C', context]);
}

/** Runs the script the image's build stage runs, with the Dockerfile's environment. */
function runBuildScript(app: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['deploy/docker/build-app.sh', app, out], {
      cwd: context,
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
    child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('deploy/docker/build-app.sh on a clean copy of the repository', () => {
  let nats: NatsServerHandle | undefined;
  beforeAll(async () => {
    copyBuildContext();
    const build = await runBuildScript('tool-runner');
    if (build.code !== 0) throw new Error(`build-app.sh exited with ${build.code}:\n${build.output}`);
  });
  afterAll(async () => {
    await nats?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('refuses an unknown app by name', async () => {
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn('bash', [path.join(context, 'deploy/docker/build-app.sh'), 'no-such-app', path.join(work, 'nothing')], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => resolve({ code, output }));
    });
    expect(result.code).toBe(64);
    expect(result.output).toContain("no app 'no-such-app'");
  });

  it('lays out the app, the libraries it uses and nothing else', () => {
    expect(readlinkSync(path.join(out, 'app'))).toBe('apps/tool-runner');
    expect(existsSync(path.join(out, 'app/dist/main.js'))).toBe(true);
    expect(existsSync(path.join(out, 'app/src'))).toBe(false);
    expect(JSON.parse(readFileSync(path.join(out, 'package.json'), 'utf8'))).toMatchObject({ name: 'agent-platform', workspaces: expect.any(Array) });
    const libs = execFileSync('ls', [path.join(out, 'libs')], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(libs).toEqual(expect.arrayContaining(['contracts', 'service-kit', 'telemetry', 'tool-sdk']));
    expect(libs).not.toContain('testing');
    for (const lib of libs) {
      expect(existsSync(path.join(out, 'libs', lib, 'dist')), `libs/${lib}/dist`).toBe(true);
      expect(existsSync(path.join(out, 'libs', lib, 'src')), `libs/${lib}/src`).toBe(false);
      expect(lstatSync(path.join(out, 'node_modules/@platform', lib)).isSymbolicLink(), `node_modules/@platform/${lib}`).toBe(true);
    }
    expect(existsSync(path.join(out, 'apps/api'))).toBe(false);
  });

  it('installs production dependencies only', () => {
    for (const runtime of ['@grpc/grpc-js', '@nats-io/transport-node', 'pino', 'zod', '@opentelemetry/sdk-node']) {
      expect(existsSync(path.join(out, 'node_modules', runtime, 'package.json')), runtime).toBe(true);
    }
    for (const dev of ['typescript', 'vitest', 'nx', 'eslint', 'tsx', '@bufbuild/buf']) {
      expect(existsSync(path.join(out, 'node_modules', dev)), dev).toBe(false);
    }
  });

  it('starts the entry as the image does, serves, and drains on SIGTERM', async () => {
    nats = await startNatsServer();
    const service = ManagedProcess.start('tool-runner (built)', process.execPath, ['--enable-source-maps', '--import', '@platform/telemetry/register', 'app/dist/main.js'], {
      cwd: out,
      env: { PATH: process.env['PATH'], NODE_ENV: 'production', NATS_URL: nats.url, RUNNER_NAME: 'image-check', OTEL_SDK_DISABLED: 'true' },
    });
    try {
      await service.waitForOutput((output) => output.includes('"msg":"ready"'), 120_000);
      await service.stop('SIGTERM', 60_000);
      expect(await service.waitForExit()).toBe(0);
      expect(service.recentOutput).toContain('shutdown complete');
    } finally {
      await service.kill();
    }
  });

  it('stops at boot with a config error naming the variable when the environment is wrong', async () => {
    const service = ManagedProcess.start('tool-runner (bad config)', process.execPath, ['--import', '@platform/telemetry/register', 'app/dist/main.js'], {
      cwd: out,
      env: { PATH: process.env['PATH'], RUNNER_MAX_CONCURRENCY: 'many', OTEL_SDK_DISABLED: 'true' },
    });
    expect(await service.waitForExit()).not.toBe(0);
    expect(service.recentOutput).toContain('RUNNER_MAX_CONCURRENCY');
  });
});
