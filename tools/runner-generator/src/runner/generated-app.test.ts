import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import runnerGenerator from './generator.js';
import { createPrettierWorkspace } from './test-support/prettier-tree.js';

const execFileAsync = promisify(execFile);
const workspaceRoot = fileURLToPath(new URL('../../../../', import.meta.url));
/** Git-ignored, and ignored by Nx project discovery, so the check never shows up as a project. */
const CHECK_ROOT = 'tmp/generator-check';
const directory = `${CHECK_ROOT}/${randomBytes(6).toString('hex')}`;

/**
 * Runs a workspace binary from the workspace root, as a developer would. Vitest's own variables
 * are removed so the nested Vitest behaves as a top-level run.
 */
async function run(bin: string, args: string[]): Promise<string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST') && key !== 'FORCE_COLOR'),
  );
  try {
    const { stdout, stderr } = await execFileAsync(path.join(workspaceRoot, 'node_modules/.bin', bin), args, {
      cwd: workspaceRoot,
      env: { ...env, NO_COLOR: '1' },
      maxBuffer: 16 * 1024 * 1024,
    });
    return `${stdout}${stderr}`;
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`${bin} ${args.join(' ')} failed:\n${stdout}${stderr}`);
  }
}

// The generator runs on an in-memory tree; only the app's files are written to disk, inside the
// workspace (under tmp/), so `@platform/*`, `zod`, `vitest`, tsconfig.base.json and
// vitest.shared.ts resolve exactly as for an app under apps/. docs/runners.md is not touched.
beforeAll(async () => {
  const tree = createPrettierWorkspace();
  await runnerGenerator(tree, { name: 'check-runner', description: "A runner's compile check.", directory });
  for (const change of tree.listChanges()) {
    if (change.type !== 'CREATE' || !change.path.startsWith(`${directory}/`) || !change.content) continue;
    const file = path.join(workspaceRoot, change.path);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, change.content);
  }
});

afterAll(async () => {
  await rm(path.join(workspaceRoot, directory), { recursive: true, force: true });
  // Only removed when empty: another run may be using it at the same time.
  await rmdir(path.join(workspaceRoot, CHECK_ROOT)).catch(() => undefined);
});

describe('a generated runner app', () => {
  it('type-checks with the workspace settings (strict, NodeNext, library sources)', async () => {
    await run('tsc', ['-p', `${directory}/tsconfig.json`, '--noEmit']);
  });

  it('is formatted as the workspace requires (prettier --check, as workspace-checks:lint runs it)', async () => {
    // Only .prettierignore: by default Prettier also skips what .gitignore lists, and tmp/ is there.
    const output = await run('prettier', ['--check', '--ignore-path', '.prettierignore', directory]);
    expect(output).toMatch(/All matched files use Prettier code style!/);
  });

  it('passes its own tests: the tool unit test and the runner test over a private NATS', async () => {
    const output = await run('vitest', ['run', '--root', directory]);
    expect(output).toMatch(/Test Files\s+2 passed/);
    expect(output).toMatch(/Tests\s+\d+ passed/);
  });
});
