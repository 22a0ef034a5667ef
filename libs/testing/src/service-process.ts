import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { ManagedProcess } from './managed-process.js';

/** The monorepo root, found from this file's location (src/ or dist/ of libs/testing). */
export function workspaceRoot(): string {
  return fileURLToPath(new URL('../../../', import.meta.url));
}

export type ServiceMode = 'dist' | 'source';

export interface ServiceProcessOptions {
  /** App folder under apps/, e.g. `memory`. */
  app: string;
  env: Record<string, string | undefined>;
  /** `dist` runs the built JavaScript (as production does); `source` runs TypeScript through tsx. */
  mode?: ServiceMode;
  /** Load OpenTelemetry before the app (`--import @platform/telemetry/register`). Default true. */
  telemetry?: boolean;
  readyTimeoutMs?: number;
  /** Receives every line the service writes (for a console, or a test's diagnostics). */
  onLine?: (line: string) => void;
  /** Monorepo checkout to run the app from (default: this one), e.g. another worktree for an A/B benchmark. */
  root?: string;
}

/** The JSON log line a service prints when it is ready; carries its ports. */
type ReadyLine = Record<string, unknown> & { msg: 'ready' };

/** A platform service running as its own OS process. */
export interface ServiceProcess {
  readonly app: string;
  readonly pid: number | undefined;
  readonly ready: ReadyLine;
  readonly process: ManagedProcess;
  /** Graceful stop (SIGTERM, then SIGKILL after the grace period). */
  stop(graceMs?: number): Promise<void>;
  /** Crash it (SIGKILL). */
  kill(): Promise<void>;
}

function nodeArgs(app: string, mode: ServiceMode, telemetry: boolean): string[] {
  const args = ['--enable-source-maps'];
  if (mode === 'source') args.push('--conditions=@platform/source', '--import', 'tsx');
  if (telemetry) args.push('--import', '@platform/telemetry/register');
  args.push(path.join('apps', app, mode === 'dist' ? 'dist/main.js' : 'src/main.ts'));
  return args;
}

function findReadyLine(output: string): ReadyLine | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes('"ready"')) continue;
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (parsed['msg'] === 'ready') return parsed as ReadyLine;
    } catch {
      // not a JSON log line
    }
  }
  return undefined;
}

/** Starts an app as a child process and resolves once it logs its `ready` line. */
export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  const mode = options.mode ?? 'dist';
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, OTEL_SERVICE_NAME: options.app, ...options.env })) {
    if (value !== undefined) env[key] = value;
  }
  const proc = ManagedProcess.start(
    options.app,
    process.execPath,
    nodeArgs(options.app, mode, options.telemetry ?? true),
    { cwd: options.root ?? workspaceRoot(), env },
  );
  if (options.onLine) {
    let partial = '';
    const forward = (chunk: Buffer): void => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line) options.onLine?.(line);
    };
    proc.child.stdout?.on('data', forward);
    proc.child.stderr?.on('data', forward);
  }
  let ready: ReadyLine | undefined;
  await proc.waitForOutput((output) => (ready = findReadyLine(output)) !== undefined, options.readyTimeoutMs ?? 30_000);
  return {
    app: options.app,
    pid: proc.pid,
    ready: ready!,
    process: proc,
    stop: (graceMs = 15_000) => proc.stop('SIGTERM', graceMs),
    kill: () => proc.kill(),
  };
}
