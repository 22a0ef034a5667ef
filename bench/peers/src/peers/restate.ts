// Restate (@restatedev/restate-server + @restatedev/restate-sdk): the calculator turn as a Restate
// service handler whose model calls and tool call are `ctx.run` steps, served by the SDK's HTTP/2
// endpoint in this process and invoked through the Restate server's ingress (HTTP, request and
// response). Restate journals the invocation and every step's result in its own log on local
// disk (RocksDB, fsync'd), not in PostgreSQL: its server is the durable store of this row.
import * as restate from '@restatedev/restate-sdk';
import { JsonClient } from '@platform/bench-kit';
import { randomUUID } from 'node:crypto';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { CallLog, verifyTurn } from '../calculator-turn.js';
import { CalculatorSteps, STEPS_PER_TURN } from '../durable/calculator-steps.js';
import { startRestateServer, type RestateServer } from '../durable/restate-server.js';
import { ownCpuMs, type ModelEndpoint, type Peer } from '../peer.js';

const SERVICE = 'CalculatorAgent';
const HANDLER = 'turn';
const READY_TIMEOUT_MS = 60_000;

/** The SDK logs every invocation's start and end at INFO; a service in production logs warnings and errors. */
const warningsOnly: restate.LoggerTransport = (meta, message: unknown, ...rest: unknown[]) => {
  const level: string = meta.level;
  if (level === 'warn' || level === 'error')
    process.stderr.write(`[restate sdk] ${level}: ${[message, ...rest].map(String).join(' ')}\n`);
};

export function restatePeer(endpoint: ModelEndpoint): Peer {
  const steps = new CalculatorSteps(endpoint);
  const agent = restate.service({
    name: SERVICE,
    handlers: {
      [HANDLER]: async (ctx: restate.Context, turnId: string) => steps.run(turnId, (name, fn) => ctx.run(name, fn)),
    },
  });
  const client = new JsonClient();
  let server: RestateServer | undefined;
  let sdk: http2.Http2Server | undefined;
  let turns = 0;
  const invoke = async (turnId: string): Promise<unknown> => {
    const response = await client.post(`${server!.ingressUrl}/${SERVICE}/${HANDLER}`, {}, turnId);
    if (response.status !== 200)
      throw new Error(`restate ingress: HTTP ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const turn = async (): Promise<unknown> => {
    const turnId = randomUUID();
    const log = new CallLog();
    steps.logs.set(turnId, log);
    try {
      const answer = await invoke(turnId);
      verifyTurn('Restate', log, answer);
      return answer;
    } finally {
      steps.logs.delete(turnId);
    }
  };
  return {
    key: 'restate',
    name: 'Restate (durable: invocation journal in its own log on local disk, not PostgreSQL)',
    async prepare() {
      server = await startRestateServer();
      sdk = http2.createServer(restate.createEndpointHandler({ services: [agent], logger: warningsOnly }));
      await new Promise<void>((resolve) => sdk!.listen(0, '127.0.0.1', resolve));
      await server.register(`http://127.0.0.1:${(sdk.address() as AddressInfo).port}`);
      // The partitions may still be electing their leaders: the first turn is retried until it runs.
      const deadline = Date.now() + READY_TIMEOUT_MS;
      for (;;) {
        try {
          await turn();
          turns += 1;
          return;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    },
    async turn() {
      await turn();
      turns += 1;
    },
    async cpuMs() {
      return new Map([...ownCpuMs(), ['restate-server', await server!.cpuMs()]]);
    },
    async persisted() {
      // Restate keeps a completed invocation's journal for its journal retention (1 day by default).
      const [row] = await server!.query<{ invocations: number; complete: number; runs: number }>(
        `SELECT count(*) AS invocations, sum(CASE WHEN runs = ${STEPS_PER_TURN} THEN 1 ELSE 0 END) AS complete, sum(runs) AS runs
           FROM (SELECT i.id, count(j.index) AS runs
                   FROM sys_invocation i LEFT JOIN sys_journal j ON j.id = i.id AND j.entry_type = 'Command: Run'
                  WHERE i.target_service_name = '${SERVICE}' AND i.target_handler_name = '${HANDLER}' AND i.status = 'completed'
                  GROUP BY i.id)`,
      );
      const runs = Number(row?.runs ?? 0);
      return {
        turns,
        stored: Number(row?.complete ?? 0),
        detail: `Restate's log on local disk (${server!.baseDir}): ${row?.invocations ?? 0} completed invocations in sys_invocation, ${runs} run entries in sys_journal (${(runs / Math.max(1, turns)).toFixed(1)} per turn), ${row?.complete ?? 0} with all ${STEPS_PER_TURN} steps`,
      };
    },
    async stop() {
      client.close();
      // The server first: it holds HTTP/2 sessions to the endpoint, which the endpoint's close waits for.
      await server?.stop();
      await new Promise<void>((resolve) => (sdk ? sdk.close(() => resolve()) : resolve()));
    },
  };
}
