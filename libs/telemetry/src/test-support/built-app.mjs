// Plain-JavaScript ESM app for checking the *built* entries (no tsx, no source condition):
//   node --import ./dist/register.js src/test-support/built-app.mjs
// Env: TELEMETRY_MAIN, the built main entry to load (default: the package's own dist via its exports).
// Serves HTTP, calls a gRPC server on each request, uses withSpan and shutdownTelemetry, prints `ok <json>`.
import http from 'node:http';
import { Server, ServerCredentials, credentials, makeGenericClientConstructor } from '@grpc/grpc-js';

const { withSpan, shutdownTelemetry } = await import(process.env.TELEMETRY_MAIN ?? '@platform/telemetry');

const json = { serialize: (v) => Buffer.from(JSON.stringify(v)), deserialize: (b) => JSON.parse(b.toString('utf8')) };
const service = {
  echo: {
    path: '/fixture.Echo/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};

const grpcServer = new Server();
grpcServer.addService(service, { echo: (call, callback) => callback(null, { echoed: call.request.text }) });
const grpcPort = await new Promise((resolve, reject) =>
  grpcServer.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, port) =>
    err ? reject(err) : resolve(port),
  ),
);
const EchoClient = makeGenericClientConstructor(service, 'fixture.Echo');
const client = new EchoClient(`127.0.0.1:${grpcPort}`, credentials.createInsecure());

const httpServer = http.createServer((req, res) => {
  withSpan(
    'built-app',
    'handle',
    {},
    () =>
      new Promise((resolve, reject) =>
        client.echo({ text: req.url }, (err, reply) => (err ? reject(err) : resolve(reply))),
      ),
  )
    .then((reply) => res.end(JSON.stringify(reply)))
    .catch((err) => res.writeHead(500).end(String(err)));
});
await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));

const body = await fetch(`http://127.0.0.1:${httpServer.address().port}/hello`).then((r) => r.text());
process.stdout.write(`ok ${body}\n`);

httpServer.close();
client.close();
grpcServer.forceShutdown();
await shutdownTelemetry();
