import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

const OUTPUT_TAIL_CHARS = 8_000;
const live = new Set<ManagedProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A crashed or interrupted test run must not leave servers behind.
  process.once('exit', () => {
    for (const proc of live) proc.child.kill('SIGKILL');
  });
}

/** A child process with its recent output kept for error messages and a reliable stop. */
export class ManagedProcess {
  private output = '';
  private exited = false;
  private readonly exitPromise: Promise<number | null>;

  private constructor(
    readonly label: string,
    readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer): void => {
      this.output = (this.output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exitPromise = new Promise((resolve) => {
      child.once('exit', (code) => {
        this.exited = true;
        live.delete(this);
        resolve(code);
      });
      child.once('error', (err) => {
        this.output += `\nspawn error: ${err.message}`;
        this.exited = true;
        live.delete(this);
        resolve(null);
      });
    });
  }

  static start(label: string, command: string, args: string[], options: SpawnOptions = {}): ManagedProcess {
    installExitHook();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    const proc = new ManagedProcess(label, child);
    live.add(proc);
    return proc;
  }

  get isAlive(): boolean {
    return !this.exited;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The last few KB the process wrote, for diagnosing a failed start. */
  get recentOutput(): string {
    return this.output;
  }

  waitForExit(): Promise<number | null> {
    return this.exitPromise;
  }

  /** Sends `signal`, then SIGKILL if the process is still running after `graceMs`. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 5_000): Promise<void> {
    if (this.exited) return;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exitPromise;
    clearTimeout(timer);
  }

  /** Ends the process at once, as a crash would. */
  async kill(): Promise<void> {
    await this.stop('SIGKILL', 0);
  }

  /** Resolves when `predicate` matches the output so far, e.g. a "ready" log line. */
  async waitForOutput(predicate: (output: string) => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (predicate(this.output)) return;
      if (this.exited) throw new Error(`${this.label} exited early:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`${this.label} was not ready within ${timeoutMs} ms:\n${this.output}`);
  }
}
