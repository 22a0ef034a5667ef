// What one request/response between two processes costs in CPU when it arrives alone, against when
// requests arrive back to back: a plain node:http exchange over loopback (no platform code), offered
// at fixed rates (open loop) and then by 64 closed-loop clients, each process's CPU read from
// itself. It tells how much of a turn's extra CPU at moderate load (bench/turn README, "Open loop")
// is the machine's cost of waking a process for each message.
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { intEnv, intListEnv } from '@platform/bench-kit';

const RATE_SECONDS = intEnv('RATE_SECONDS', 5);
const RATES = intListEnv('RATES', [20, 100, 500, 2000]);
if (RATES.includes(0)) throw new Error('RATES must be positive (requests per second)');
const CLOSED_REQUESTS = intEnv('CLOSED_REQUESTS', 20_000);
const ROUNDS = intEnv('ROUNDS', 2);
const BODY = JSON.stringify({ conversation: 'c-1', content: 'What is 12 * (3 + 4)?' });

const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

if (process.argv[2] === 'server') {
  const server = http.createServer((req, res) => {
    if (req.url === '/cpu') {
      res.end(String(cpuMs()));
      return;
    }
    let length = 0;
    req.on('data', (chunk: Buffer) => (length += chunk.length));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, received: length }));
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as { port: number }).port));
} else {
  const child = fork(fileURLToPath(import.meta.url), ['server'], { execArgv: process.execArgv });
  try {
    const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(Number(m))));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const call = (path = '/exchange'): Promise<string> =>
      new Promise((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end(BODY);
      });
    const measure = async (name: string, run: () => Promise<number>): Promise<void> => {
      const [server0, client0] = [Number(await call('/cpu')), cpuMs()];
      const requests = await run();
      const [server1, client1] = [Number(await call('/cpu')), cpuMs()];
      const us = (ms: number) => ((ms * 1000) / requests).toFixed(1).padStart(6);
      process.stdout.write(`| ${name} | ${requests} | ${us(server1 - server0)} | ${us(client1 - client0)} |\n`);
    };
    const openLoop = (rate: number) => async (): Promise<number> => {
      const total = rate * RATE_SECONDS;
      const start = performance.now();
      const pending: Promise<string>[] = [];
      for (let i = 0; i < total; i++) {
        const wait = start + (i * 1000) / rate - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        pending.push(call());
      }
      await Promise.all(pending);
      return total;
    };
    const closedLoop = async (): Promise<number> => {
      let left = CLOSED_REQUESTS;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (left-- > 0) await call();
        }),
      );
      return CLOSED_REQUESTS;
    };
    await closedLoop(); // warm-up: JIT, connections
    process.stdout.write(
      '| offered | requests | server CPU per request (us) | client CPU per request (us) |\n|---|---|---|---|\n',
    );
    for (let round = 1; round <= ROUNDS; round++) {
      for (const rate of RATES) await measure(`${rate}/s (round ${round})`, openLoop(rate));
      await measure(`64 closed-loop clients (round ${round})`, closedLoop);
    }
  } finally {
    child.kill();
  }
}
