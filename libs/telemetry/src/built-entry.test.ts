// The compiled output, as services load it in production: `node --import <dist>/register.js app.mjs`
// with plain JavaScript (no tsx, no @platform/source condition).
import { execFile } from 'node:child_process';
import { mkdir, rm, rmdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ManagedProcess, startOtlpCollector, type OtlpCollector } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIB_ROOT } from './test-support/spawn-app.js';

// Under node_modules so the build resolves the workspace's packages and is never mistaken for source.
const outDir = path.join(LIB_ROOT, 'node_modules', '.built-entry-test', String(process.pid));
let collector: OtlpCollector;

beforeAll(async () => {
  await mkdir(outDir, { recursive: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', outDir], {
    cwd: LIB_ROOT,
  });
  collector = await startOtlpCollector();
}, 120_000);

afterAll(async () => {
  await collector?.stop();
  await rm(outDir, { recursive: true, force: true });
  // Shared by concurrent runs, so only removed once empty.
  await rmdir(path.dirname(outDir)).catch(() => undefined);
});

describe('the built register entry', () => {
  it('instruments a plain-JS ESM app and exports one connected trace', async () => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_') && key !== 'NODE_OPTIONS'),
    );
    const app = ManagedProcess.start(
      'built-app',
      process.execPath,
      ['--import', path.join(outDir, 'register.js'), './src/test-support/built-app.mjs'],
      {
        cwd: LIB_ROOT,
        env: {
          ...env,
          OTEL_SERVICE_NAME: 'built-app',
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
          TELEMETRY_MAIN: pathToFileURL(path.join(outDir, 'index.js')).href,
        },
      },
    );
    expect(await app.waitForExit()).toBe(0);
    expect(app.recentOutput).toContain('ok {"echoed":"/hello"}');

    const spans = collector.spans();
    const httpServer = spans.find((s) => s.kind === 'SERVER' && s.scope === '@opentelemetry/instrumentation-http');
    const handle = spans.find((s) => s.name === 'handle');
    const grpcClient = spans.find((s) => s.kind === 'CLIENT' && s.attributes['rpc.system'] === 'grpc');
    const grpcServer = spans.find((s) => s.kind === 'SERVER' && s.attributes['rpc.system'] === 'grpc');
    expect(handle?.parentSpanId).toBe(httpServer?.spanId);
    expect(grpcClient?.parentSpanId).toBe(handle?.spanId);
    expect(grpcServer?.parentSpanId).toBe(grpcClient?.spanId);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(new Set(spans.map((s) => s.serviceName))).toEqual(new Set(['built-app']));
  });
});
