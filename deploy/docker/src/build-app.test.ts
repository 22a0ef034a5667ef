import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  freePort,
  generateCredentialKeys,
  ManagedProcess,
  sharedServicePki,
  startNatsServer,
  startPostgresServer,
  type NatsServerHandle,
  type PostgresServerHandle,
} from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const dockerfile = readFileSync(path.join(repoRoot, 'deploy/docker/Dockerfile'), 'utf8');

/** The runtime stage's command (CMD in exec form), which the test runs as the image would. */
function imageCommand(): string[] {
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  if (!cmd) throw new Error('the Dockerfile has no CMD in exec form');
  return JSON.parse(cmd) as string[];
}
const work = mkdtempSync(path.join(tmpdir(), 'image-build-'));
const context = path.join(work, 'context');
const out = path.join(work, 'out-tool-runner');

/**
 * The Docker build context: the repository's files (tracked or new, not ignored) minus what
 * .dockerignore leaves out, so the copy has no node_modules, no dist, no Nx cache and no .git:
 * what `COPY . .` puts in the image's build stage.
 */
function copyBuildContext(): void {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: repoRoot,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file && existsSync(path.join(repoRoot, file)));
  execFileSync('mkdir', ['-p', context]);
  execFileSync('tar', ['--null', '-T', '-', '-cf', path.join(work, 'context.tar')], {
    cwd: repoRoot,
    input: files.join('\0'),
  });
  execFileSync('tar', ['-xf', path.join(work, 'context.tar'), '-C', context]);
}

/** Runs the script the image's build stage runs, with the Dockerfile's environment. */
function runBuildScript(app: string, into: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['deploy/docker/build-app.sh', app, into], {
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

describe('deploy/docker/Dockerfile', () => {
  it('runs the build script into /out and copies only /out into the runtime stage', () => {
    expect(dockerfile).toMatch(/^RUN [^\n]*(?:\\\n[^\n]*)*deploy\/docker\/build-app\.sh "\$APP" \/out$/m);
    expect(dockerfile).toMatch(/^COPY --from=build \/out\/ \/app\/$/m);
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(2);
  });

  it('runs as a numeric non-root user under tini, in exec form, without a HEALTHCHECK', () => {
    const user = /^USER (\d+):(\d+)$/m.exec(dockerfile);
    expect(user && Number(user[1])).toBeGreaterThan(0);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
    expect(dockerfile).toMatch(/apt-get install -y --no-install-recommends tini/);
    expect(dockerfile).not.toMatch(/^HEALTHCHECK/m);
    expect(imageCommand()[0]).toBe('node');
  });
});

async function build(app: string, into: string): Promise<void> {
  const result = await runBuildScript(app, into);
  if (result.code !== 0) throw new Error(`build-app.sh ${app} exited with ${result.code}:\n${result.output}`);
}

beforeAll(() => copyBuildContext());
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('deploy/docker/build-app.sh on a clean copy of the repository', () => {
  let nats: NatsServerHandle | undefined;
  beforeAll(() => build('tool-runner', out));
  afterAll(async () => {
    await nats?.stop();
  });

  it('refuses an unknown app by name', async () => {
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(
        'bash',
        [path.join(context, 'deploy/docker/build-app.sh'), 'no-such-app', path.join(work, 'nothing')],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
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
    expect(JSON.parse(readFileSync(path.join(out, 'package.json'), 'utf8'))).toMatchObject({
      name: 'agent-platform',
      workspaces: expect.any(Array),
    });
    const libs = execFileSync('ls', [path.join(out, 'libs')], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    expect(libs).toEqual(expect.arrayContaining(['contracts', 'service-kit', 'telemetry', 'tool-sdk']));
    expect(libs).not.toContain('testing');
    for (const lib of libs) {
      expect(existsSync(path.join(out, 'libs', lib, 'dist')), `libs/${lib}/dist`).toBe(true);
      expect(existsSync(path.join(out, 'libs', lib, 'src')), `libs/${lib}/src`).toBe(false);
      expect(
        lstatSync(path.join(out, 'node_modules/@platform', lib)).isSymbolicLink(),
        `node_modules/@platform/${lib}`,
      ).toBe(true);
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

  it("starts with the image's command, serves, and drains on SIGTERM", async () => {
    nats = await startNatsServer();
    const [, ...args] = imageCommand();
    const service = ManagedProcess.start('tool-runner (built)', process.execPath, args, {
      cwd: out,
      env: {
        PATH: process.env['PATH'],
        NODE_ENV: 'production',
        NATS_URL: nats.url,
        RUNNER_NAME: 'image-check',
        OTEL_SDK_DISABLED: 'true',
      },
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
    const [, ...args] = imageCommand();
    const service = ManagedProcess.start('tool-runner (bad config)', process.execPath, args, {
      cwd: out,
      env: { PATH: process.env['PATH'], RUNNER_MAX_CONCURRENCY: 'many', OTEL_SDK_DISABLED: 'true' },
    });
    expect(await service.waitForExit()).not.toBe(0);
    expect(service.recentOutput).toContain('RUNNER_MAX_CONCURRENCY');
  });
});

describe('deploy/docker/build-app.sh for a service with migrations', () => {
  const credentialOut = path.join(work, 'out-credential');
  let postgres: PostgresServerHandle | undefined;
  beforeAll(() => build('credential', credentialOut));
  afterAll(async () => {
    await postgres?.stop();
  });

  it('ships the migrations beside dist/, and the built service migrates its schema at boot', async () => {
    const shipped = readdirSync(path.join(credentialOut, 'app/migrations')).sort();
    expect(shipped).toEqual(readdirSync(path.join(repoRoot, 'apps/credential/migrations')).sort());
    expect(shipped.some((file) => file.endsWith('.sql'))).toBe(true);
    postgres = await startPostgresServer();
    const databaseUrl = await postgres.createDatabase('credential_image');
    const keys = generateCredentialKeys();
    const [, ...args] = imageCommand();
    const service = ManagedProcess.start('credential (built)', process.execPath, args, {
      cwd: credentialOut,
      env: {
        PATH: process.env['PATH'],
        NODE_ENV: 'production',
        OTEL_SDK_DISABLED: 'true',
        ...(await (await sharedServicePki()).env('credential')),
        DATABASE_URL: databaseUrl,
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: String(await freePort()),
        CREDENTIAL_KEYRING: keys.keyring,
        CREDENTIAL_GRANT_PUBLIC_KEYS: keys.grantPublicKeys,
        CREDENTIAL_PLATFORM_TOKENS: keys.platformToken,
      },
    });
    try {
      await service.waitForOutput((output) => output.includes('"msg":"ready"'), 120_000);
      await service.stop('SIGTERM', 60_000);
      expect(await service.waitForExit()).toBe(0);
    } finally {
      await service.kill();
    }
  });
});

describe('deploy/docker/build-app.sh for the api', () => {
  const apiOut = path.join(work, 'out-api');
  let nats: NatsServerHandle | undefined;
  beforeAll(() => build('api', apiOut));
  afterAll(async () => {
    await nats?.stop();
  });

  it('ships the built web console (files only) and serves it under /console', async () => {
    expect(existsSync(path.join(apiOut, 'apps/console/dist/index.html'))).toBe(true);
    expect(existsSync(path.join(apiOut, 'apps/console/package.json'))).toBe(false);
    nats = await startNatsServer();
    const port = await freePort();
    const [, ...args] = imageCommand();
    const service = ManagedProcess.start('api (built)', process.execPath, args, {
      cwd: apiOut,
      env: {
        PATH: process.env['PATH'],
        NODE_ENV: 'production',
        OTEL_SDK_DISABLED: 'true',
        NATS_URL: nats.url,
        HTTP_PORT: String(port),
        AUTH_JWT_SECRET: 'image-check-secret-image-check-secret',
        ...(await (await sharedServicePki()).env('api')),
      },
    });
    try {
      await service.waitForOutput((output) => output.includes('"msg":"ready"'), 120_000);
      const page = await fetch(`http://127.0.0.1:${port}/console/runs`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
      await service.stop('SIGTERM', 60_000);
    } finally {
      await service.kill();
    }
  });
});
