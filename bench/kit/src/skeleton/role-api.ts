// The skeleton's api: `POST /turn` with `{ conversation, content }`, handed to the orchestrator
// over gRPC; the answer is the orchestrator's. No admission or limits (a floor, not a service); with
// the duties on, callers are known by their API key (401 without a known one).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiKeys } from './duty-auth.js';
import { JsonGrpcClient } from './json-grpc.js';
import { announceReady, DUTIES, exitOnTerm, required } from './role-env.js';

const orchestrator = new JsonGrpcClient(required('ORCHESTRATOR_ADDRESS'));
const keys = DUTIES.has('auth') ? new ApiKeys({ [required('SKELETON_API_KEY')]: 'bench' }) : undefined;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const reply = (status: number, body: unknown): void => {
      const text = JSON.stringify(body);
      res
        .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
        .end(text);
    };
    const tenant = keys ? keys.tenantOf(req.headers.authorization) : 'bench';
    if (!tenant) {
      reply(401, { error: 'a known API key is required' });
      return;
    }
    let body: { conversation?: unknown; content?: unknown };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
    } catch {
      reply(400, { error: 'body is not JSON' });
      return;
    }
    if (
      req.method !== 'POST' ||
      req.url !== '/turn' ||
      typeof body.conversation !== 'string' ||
      typeof body.content !== 'string'
    ) {
      reply(400, { error: 'POST /turn with { conversation, content }' });
      return;
    }
    orchestrator
      .call<{ response: string }>('Turn', { tenant, conversation: body.conversation, content: body.content })
      .then(
        (answer) => reply(200, answer),
        (err: unknown) => reply(503, { error: (err as Error).message }),
      );
  });
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => announceReady((server.address() as AddressInfo).port));
exitOnTerm(() => new Promise((resolve) => server.close(resolve)).finally(() => orchestrator.close()));
