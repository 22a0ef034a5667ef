import { shutdownTelemetry } from '@platform/telemetry';
import type { Logger } from 'pino';

export interface ShutdownStep {
  name: string;
  run: () => Promise<void> | void;
}

export interface GracefulShutdownOptions {
  logger: Logger;
  /** Hard limit for all steps together; past it the process exits with code 1. */
  timeoutMs?: number;
  /** Exit the process after the steps ran (default true; tests pass false). */
  exitProcess?: boolean;
}

/**
 * Runs registered shutdown steps in order on SIGTERM/SIGINT (or an explicit call): services
 * register "stop accepting work" first and "close connections" last. A second signal, or the
 * timeout, forces the exit.
 */
export class GracefulShutdown {
  private readonly steps: ShutdownStep[] = [];
  private running: Promise<void> | undefined;
  private readonly timeoutMs: number;
  private readonly exitProcess: boolean;

  constructor(private readonly options: GracefulShutdownOptions) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.exitProcess = options.exitProcess ?? true;
  }

  /** Adds a step; steps run in the order they were added. */
  add(name: string, run: ShutdownStep['run']): this {
    this.steps.push({ name, run });
    return this;
  }

  /** Installs the SIGTERM and SIGINT handlers. */
  listen(): this {
    const onSignal = (signal: NodeJS.Signals): void => {
      if (this.running) {
        this.options.logger.warn({ signal }, 'second signal during shutdown; exiting now');
        process.exit(1);
      }
      void this.shutdown(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    return this;
  }

  /** Runs every step once; later calls return the same promise. */
  shutdown(reason: string): Promise<void> {
    this.running ??= this.runSteps(reason);
    return this.running;
  }

  private async runSteps(reason: string): Promise<void> {
    const { logger } = this.options;
    logger.info({ reason }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ timeoutMs: this.timeoutMs }, 'shutdown timed out; exiting');
      if (this.exitProcess) process.exit(1);
    }, this.timeoutMs);
    timer.unref();
    let failed = false;
    for (const step of this.steps) {
      try {
        await step.run();
        logger.debug({ step: step.name }, 'shutdown step done');
      } catch (err) {
        failed = true;
        logger.error({ err, step: step.name }, 'shutdown step failed');
      }
    }
    // Last: export the spans of everything above before the process goes away.
    await shutdownTelemetry();
    clearTimeout(timer);
    logger.info('shutdown complete');
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    if (this.exitProcess) process.exit(failed ? 1 : 0);
  }
}
