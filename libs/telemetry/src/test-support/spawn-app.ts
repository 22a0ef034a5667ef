// Starts a fixture app the way services run from source in tests:
// node --conditions=@platform/source --import tsx --import ./src/register.ts <fixture>
import { fileURLToPath } from 'node:url';
import { ManagedProcess } from '@platform/testing';

/** libs/telemetry, the working directory of every fixture process. */
export const LIB_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The parent's environment without OTEL_* settings, so only what a test passes reaches the fixture. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_') && key !== 'NODE_OPTIONS'),
  );
}

export interface AppOptions {
  readonly env?: Record<string, string>;
  readonly args?: string[];
  /** The register entry to preload, relative to LIB_ROOT. */
  readonly register?: string;
}

export function startApp(fixture: string, options: AppOptions = {}): ManagedProcess {
  const args = [
    '--conditions=@platform/source',
    '--import',
    'tsx',
    '--import',
    options.register ?? './src/register.ts',
    `./src/test-support/${fixture}`,
    ...(options.args ?? []),
  ];
  return ManagedProcess.start(fixture, process.execPath, args, {
    cwd: LIB_ROOT,
    env: { ...cleanEnv(), ...options.env },
  });
}

/** Waits for the fixture's `listening <port>` line and returns the port. */
export async function listeningPort(app: ManagedProcess, timeoutMs = 30_000): Promise<number> {
  await app.waitForOutput((out) => /listening \d+/.test(out), timeoutMs);
  return Number(/listening (\d+)/.exec(app.recentOutput)?.[1]);
}
