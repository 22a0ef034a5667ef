// Process B of the trace test: a gRPC server whose handler runs a pg query and an ioredis command
// (and which runs one of each outside any trace before it listens).
// Env: PG_URL, REDIS_URL. Prints `listening <port>` once ready.
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { Redis } from 'ioredis';
import pg from 'pg';
import { shutdownTelemetry } from '../index.js';
import { lookupService, type LookupReply, type LookupRequest } from './lookup-service.js';

const pool = new pg.Pool({ connectionString: process.env['PG_URL'], max: 2 });
const redis = new Redis(process.env['REDIS_URL'] ?? '');

async function lookup(request: LookupRequest): Promise<LookupReply> {
  const { rows } = await pool.query<{ sum: number }>('SELECT 1 + 1 AS sum');
  await redis.set(`fixture:${request.key}`, 'seen');
  const cached = await redis.get(`fixture:${request.key}`);
  return { sum: rows[0]?.sum ?? -1, cached };
}

const server = new Server();
server.addService(lookupService, {
  lookup: (call: ServerUnaryCall<LookupRequest, LookupReply>, callback: sendUnaryData<LookupReply>) => {
    lookup(call.request).then(
      (reply) => callback(null, reply),
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
    );
  },
});
// Background work outside any trace (as a service's pollers and sweepers are): it must not start traces of its own.
await pool.query('SELECT 1 AS warm');
await redis.ping();

server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  process.stdout.write(`listening ${port}\n`);
});

process.once('SIGTERM', () => {
  server.forceShutdown();
  redis.disconnect();
  void pool
    .end()
    .then(() => shutdownTelemetry())
    .finally(() => process.exit(0));
});
