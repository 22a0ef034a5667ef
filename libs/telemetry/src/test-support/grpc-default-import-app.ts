// gRPC client and server in one process, with @grpc/grpc-js imported through its *default* export
// (the CommonJS exports object). Makes one call, prints `reply <json>`, and exits on its own, so
// the spans reach the collector through the beforeExit flush.
import grpc, { type Client, type ServiceError } from '@grpc/grpc-js';
import { lookupService, type LookupReply, type LookupRequest } from './lookup-service.js';

interface LookupClient extends Client {
  lookup(request: LookupRequest, callback: (err: ServiceError | null, reply?: LookupReply) => void): void;
}

const server = new grpc.Server();
server.addService(lookupService, {
  lookup: (call: grpc.ServerUnaryCall<LookupRequest, LookupReply>, callback: grpc.sendUnaryData<LookupReply>) =>
    callback(null, { sum: 2, cached: call.request.key }),
});
const port = await new Promise<number>((resolve, reject) =>
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) =>
    err ? reject(err) : resolve(bound),
  ),
);

const Ctor = grpc.makeGenericClientConstructor(lookupService, 'fixture.Lookup');
const client = new Ctor(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as LookupClient;
const reply = await new Promise<LookupReply | undefined>((resolve, reject) =>
  client.lookup({ key: 'k' }, (err, r) => (err ? reject(err) : resolve(r))),
);
process.stdout.write(`reply ${JSON.stringify(reply)}\n`);

client.close();
server.forceShutdown();
