// Process A of the trace test: a fastify HTTP server whose handler calls process B over gRPC.
// Env: BACKEND_ADDRESS (host:port). Prints `listening <port>` once ready.
// Imports @grpc/grpc-js by name, as ts-proto's generated clients do (grpc-default-import-app.ts covers the default import).
import { credentials, makeGenericClientConstructor, type Client, type ServiceError } from '@grpc/grpc-js';
import Fastify from 'fastify';
import { shutdownTelemetry } from '../index.js';
import { lookupService, type LookupReply, type LookupRequest } from './lookup-service.js';

interface LookupClient extends Client {
  lookup(request: LookupRequest, callback: (err: ServiceError | null, reply?: LookupReply) => void): void;
}

const LookupClientCtor = makeGenericClientConstructor(lookupService, 'fixture.Lookup');
const client = new LookupClientCtor(
  process.env['BACKEND_ADDRESS'] ?? '',
  credentials.createInsecure(),
) as unknown as LookupClient;

function lookup(request: LookupRequest): Promise<LookupReply | undefined> {
  return new Promise((resolve, reject) => client.lookup(request, (err, reply) => (err ? reject(err) : resolve(reply))));
}

const app = Fastify();
app.get<{ Params: { key: string } }>('/lookup/:key', async (req) => lookup({ key: req.params.key }));

const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening ${new URL(address).port}\n`);

process.once('SIGTERM', () => {
  // A service's graceful shutdown: stop serving, then flush spans before exiting.
  void app
    .close()
    .then(() => client.close())
    .then(() => shutdownTelemetry())
    .finally(() => process.exit(0));
});
