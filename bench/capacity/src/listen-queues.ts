// Whether a listening socket's accept queue overflowed: a server whose event loop is busy accepts
// late, and once its queue (the listen backlog) is full the kernel drops new connections' SYNs;
// the client retries them after 1, 3, 7 s, and undici gives up after 10 s with `fetch failed`
// (UND_ERR_CONNECT_TIMEOUT). Sampled from `ss -ltn` (the queue and the backlog of each listener)
// and the kernel's ListenOverflows counter (the whole machine's, /proc/net/netstat).
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The kernel's count of connections dropped because an accept queue was full (whole machine). */
async function listenOverflows(): Promise<number> {
  const text = await readFile('/proc/net/netstat', 'utf8');
  const lines = text.split('\n').filter((l) => l.startsWith('TcpExt:'));
  const names = lines[0]?.split(/\s+/) ?? [];
  const values = lines[1]?.split(/\s+/) ?? [];
  const at = names.indexOf('ListenOverflows');
  return at < 0 ? NaN : Number(values[at]);
}

/** `ss -ltnH` lines as port -> queued connections and backlog. */
function parseListeners(output: string): Map<number, { queued: number; backlog: number }> {
  const out = new Map<number, { queued: number; backlog: number }>();
  for (const line of output.split('\n')) {
    const [state, recvQ, sendQ, local] = line.trim().split(/\s+/);
    if (state !== 'LISTEN' || !local) continue;
    const port = Number(local.slice(local.lastIndexOf(':') + 1));
    out.set(port, { queued: Number(recvQ), backlog: Number(sendQ) });
  }
  return out;
}

/** Samples the accept queues of `ports` every `everyMs` until stopped; reports the fullest each got. */
export class ListenQueueSampler {
  private readonly fullest = new Map<number, { queued: number; backlog: number }>();
  private readonly timer: NodeJS.Timeout;
  private overflowsBefore: Promise<number>;
  private sampling: Promise<void> = Promise.resolve();

  constructor(
    private readonly ports: Map<string, number>,
    everyMs = 1_000,
  ) {
    this.overflowsBefore = listenOverflows();
    this.timer = setInterval(() => {
      this.sampling = this.sample();
    }, everyMs);
  }

  private async sample(): Promise<void> {
    const { stdout } = await run('ss', ['-ltnH']).catch(() => ({ stdout: '' }));
    for (const [port, now] of parseListeners(stdout)) {
      const seen = this.fullest.get(port);
      if (!seen || now.queued > seen.queued) this.fullest.set(port, now);
    }
  }

  /** `name: fullest/backlog` per port, and the overflows meanwhile. */
  async stop(): Promise<string> {
    clearInterval(this.timer);
    await this.sampling;
    const overflows = (await listenOverflows()) - (await this.overflowsBefore);
    const queues = [...this.ports]
      .map(([name, port]) => {
        const q = this.fullest.get(port);
        return q ? `${name} ${q.queued}/${q.backlog}` : `${name} —`;
      })
      .join(', ');
    return `accept queues at their fullest (queued/backlog): ${queues}; connections dropped at a full accept queue (whole machine): ${overflows}`;
  }
}
