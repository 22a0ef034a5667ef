// A node:http server that calls itself once, prints `ok <status>` and exits on its own.
// Used to show the app runs unchanged with OTEL_SDK_DISABLED=true, and that spans of a process
// that simply ends are flushed by the beforeExit hook.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const server = http.createServer((_req, res) => res.end('pong'));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

const status = await new Promise<number | undefined>((resolve, reject) => {
  http
    .get(`http://127.0.0.1:${port}/ping`, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    })
    .on('error', reject);
});
process.stdout.write(`ok ${status}\n`);
server.close();
