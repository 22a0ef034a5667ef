import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@platform/service-kit';
import { callCredentials, ToolFailure, type ToolContext } from '@platform/tool-sdk';
import { expect } from 'vitest';

/** A loopback HTTP server for one test file. */
export interface TestServer {
  /** `127.0.0.1:<port>`, as written in an allowlist. */
  readonly host: string;
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Paths requested so far, to prove that a refused URL was never requested. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 with an OS-chosen port. */
export async function startServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        // Servers that never answer keep sockets open; end them so close() returns.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port that was free a moment ago and has nothing listening now. */
export async function closedPort(): Promise<number> {
  const server = await startServer(() => undefined);
  await server.close();
  return server.port;
}

/** A call context like the runner's, with a silent logger. */
export function testContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return {
    tenantId: 't',
    conversationId: 'c',
    callId: 'call-1',
    runId: undefined,
    deadlineAt: Date.now() + 60_000,
    signal,
    logger: createLogger({ service: 'test', level: 'silent' }),
    credentials: callCredentials(undefined, { tenantId: 't', callId: 'call-1', declared: [], grant: undefined }),
  };
}

/** The ToolFailure a call ends with; fails the test if it succeeds or throws anything else. */
export async function failureOf(promise: Promise<unknown>): Promise<ToolFailure> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(ToolFailure);
  return error as ToolFailure;
}
