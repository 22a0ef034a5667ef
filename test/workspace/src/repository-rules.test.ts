import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const tracked = (...patterns: string[]): string[] =>
  execFileSync('git', ['ls-files', '--', ...patterns], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);

describe('repository rules', () => {
  it("tracks no generated code (gRPC, the console's API types)", () => {
    expect(tracked('libs/proto/src/gen')).toEqual([]);
    expect(tracked('apps/console/src/gen')).toEqual([]);
  });

  it('keeps every source file under 500 lines', () => {
    const sources = tracked(
      'apps/*/src/*.ts',
      'apps/*/src/**/*.ts',
      'apps/*/src/*.tsx',
      'apps/*/src/**/*.tsx',
      'libs/*/src/*.ts',
      'libs/*/src/**/*.ts',
    ).filter((f) => !f.endsWith('.test.ts'));
    expect(sources.length).toBeGreaterThan(20);
    const long = sources.filter((file) => readFileSync(path.join(root, file), 'utf8').split('\n').length > 500);
    expect(long).toEqual([]);
  });

  it("keeps the orchestrator's source files at 400 lines or fewer (issue 35)", () => {
    const sources = tracked('apps/orchestrator/src/*.ts', 'apps/orchestrator/src/**/*.ts').filter(
      (f) => !f.endsWith('.test.ts'),
    );
    expect(sources.length).toBeGreaterThan(20);
    const long = sources.filter((file) => readFileSync(path.join(root, file), 'utf8').split('\n').length > 400);
    expect(long).toEqual([]);
  });

  it('has a README in every package', () => {
    const packages = tracked('*/*/package.json').map((file) => path.dirname(file));
    expect(packages.length).toBeGreaterThan(20);
    const without = packages.filter((dir) => tracked(`${dir}/README.md`).length === 0);
    expect(without).toEqual([]);
  });

  it('builds every platform app before a project that boots the whole platform', () => {
    // The apps startPlatform starts, read from libs/testing (one list; a new service is added there).
    const launcher = readFileSync(path.join(root, 'libs/testing/src/platform.ts'), 'utf8');
    const list = /export const PLATFORM_APPS = \[([^\]]*)\]/.exec(launcher)?.[1] ?? '';
    const apps = [...list.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
    expect(apps).toContain('orchestrator');
    for (const project of ['deploy/local', 'test/e2e', 'test/chaos', 'test/console', 'bench/turn', 'bench/peers']) {
      const config = JSON.parse(readFileSync(path.join(root, project, 'project.json'), 'utf8')) as {
        implicitDependencies?: string[];
      };
      const missing = apps.filter((app) => !(config.implicitDependencies ?? []).includes(app));
      expect({ project, missing }).toEqual({ project, missing: [] });
    }
  });

  it('keeps one copy of zod in the dependency tree', () => {
    const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    const copies = Object.keys(lock.packages).filter((p) => p.endsWith('node_modules/zod'));
    expect(copies).toEqual(['node_modules/zod']);
  });
});
