// The runner side of the tool-dispatch benchmark; main.ts starts it as its own process:
//   node --conditions=@platform/source --import tsx bench/tool-dispatch/src/runner-process.ts
// On one NATS connection it serves the `noop` tool through serveRunner (the platform's path) and
// answers `bench.echo` with a bare subscription that sends the request payload back (NATS alone),
// so the two kinds of call differ only by the tool protocol and SDK.
// Env: NATS_URL (required), BENCH_PARENT_PID (exit when that process is gone), RUNNER_MAX_LIFETIME_MS.
import { connectNats, createLogger } from '@platform/service-kit';
import { serveRunner } from '@platform/tool-sdk';
import { noopTool } from './noop-tool.js';
import { CPU_SUBJECT, ECHO_SUBJECT, libraryBuild, READY_PREFIX, tracingActive, type RunnerReady } from './protocol.js';

const natsUrl = process.env['NATS_URL'];
if (!natsUrl) throw new Error('NATS_URL is required');
const parentPid = Number(process.env['BENCH_PARENT_PID'] ?? process.ppid);
const maxLifetimeMs = Number(process.env['RUNNER_MAX_LIFETIME_MS'] ?? 30 * 60_000);

const logger = createLogger({ service: 'bench-runner', level: process.env['LOG_LEVEL'] ?? 'warn' });
const nc = await connectNats({ servers: natsUrl, name: 'bench-runner', logger });

const runner = await serveRunner({ nc, name: 'bench-runner', version: '1.0.0', tools: [noopTool], logger });
// Same connection, same process, a queue group like the tool endpoint's: only the SDK differs.
const echo = nc.subscribe(ECHO_SUBJECT, {
  queue: 'bench-echo',
  callback: (err, msg) => {
    if (!err) msg.respond(msg.data);
  },
});
const cpu = nc.subscribe(CPU_SUBJECT, {
  callback: (err, msg) => {
    if (!err) msg.respond(JSON.stringify(process.cpuUsage()));
  },
});
await nc.flush();

let stopping: Promise<void> | undefined;
function shutdown(reason: string, code: number): Promise<void> {
  stopping ??= (async () => {
    logger.info({ reason }, 'bench runner stopping');
    const force = setTimeout(() => process.exit(code), 5_000);
    force.unref();
    try {
      echo.unsubscribe();
      cpu.unsubscribe();
      await runner.stop(1_000);
      await nc.drain();
    } finally {
      process.exit(code);
    }
  })();
  return stopping;
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void shutdown(signal, 0));
// Never outlive the bench process (even if it was killed outright), nor run unbounded.
const watchdog = setInterval(() => {
  let parentAlive = process.ppid === parentPid;
  try {
    process.kill(parentPid, 0);
  } catch {
    parentAlive = false;
  }
  if (!parentAlive) void shutdown('bench process is gone', 1);
}, 1_000);
watchdog.unref();
setTimeout(() => void shutdown('maximum lifetime reached', 1), maxLifetimeMs).unref();

const ready: RunnerReady = {
  pid: process.pid,
  node: process.version,
  runnerId: runner.id,
  tracing: tracingActive(),
  libraries: libraryBuild(),
};
process.stdout.write(`${READY_PREFIX}${JSON.stringify(ready)}\n`);
