// The skeleton's api: `POST /turn` with `{ conversation, content }`, handed to the orchestrator
// over gRPC; the answer is the orchestrator's. No auth, admission or limits (a floor, not a service).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonGrpcClient } from './json-grpc.js';
import { announceReady, exitOnTerm, required } from './role-env.js';

const orchestrator = new JsonGrpcClient(required('ORCHESTRATOR_ADDRESS'));

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const reply = (status: number, body: unknown): void => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
    };
    let body: { conversation?: unknown; content?: unknown };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
    } catch {
      reply(400, { error: 'body is not JSON' });
      return;
    }
    if (req.method !== 'POST' || req.url !== '/turn' || typeof body.conversation !== 'string' || typeof body.content !== 'string') {
      reply(400, { error: 'POST /turn with { conversation, content }' });
      return;
    }
    orchestrator.call<{ response: string }>('Turn', { tenant: 'bench', conversation: body.conversation, content: body.content }).then(
      (answer) => reply(200, answer),
      (err: unknown) => reply(503, { error: (err as Error).message }),
    );
  });
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => announceReady((server.address() as AddressInfo).port));
exitOnTerm(() => new Promise((resolve) => server.close(resolve)).finally(() => orchestrator.close()));
