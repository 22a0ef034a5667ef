import type { Logger } from 'pino';

/**
 * Announces that the service is ready, with the ports it bound: one JSON line `{"msg":"ready",...}`
 * on stdout. Launchers (the local stack, tests) wait for it, so it is written even when the log
 * level hides `info`.
 */
export function announceReady(logger: Logger, fields: Record<string, unknown>): void {
  if (logger.isLevelEnabled('info')) {
    logger.info(fields, 'ready');
    return;
  }
  const bindings = logger.bindings();
  process.stdout.write(
    `${JSON.stringify({ level: 'info', time: new Date().toISOString(), ...bindings, ...fields, msg: 'ready' })}\n`,
  );
}
