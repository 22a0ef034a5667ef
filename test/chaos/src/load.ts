// The bounded load a chaos case runs: a few clients, each sending turns one after the other in
// its own conversation, recording what every turn got. A refused turn is not sent again (the next
// one is a new message), so the books can check each message on its own.
import { performance } from 'node:perf_hooks';

/** A turn's answer, as far as the books read it. */
interface TurnBody {
  runId?: string;
  status?: string;
  stopReason?: string;
  response?: string;
  toolCalls?: Array<{ callId: string; name: string; status: string }>;
  error?: { code?: string; message?: string };
}

/** What one turn got. `status` 0: no HTTP answer (connection failed, or the client's deadline passed). */
export interface TurnRecord {
  conversationId: string;
  content: string;
  status: number;
  retryAfter: string | null;
  body: TurnBody | undefined;
  startedAt: number;
  endedAt: number;
  /** The client's deadline passed with no answer. */
  hung: boolean;
  failure?: string;
}

export interface LoadOptions {
  apiUrl: string;
  token: string;
  /** Names the case's conversations (`<label>-c<n>`) and messages. */
  label: string;
  clients: number;
  /** A turn unanswered after this long counts as hung. */
  deadlineMs: number;
}

export interface Load {
  readonly records: readonly TurnRecord[];
  /** Resolves once `count` turns that started after `since` were answered 200 (or rejects after `timeoutMs`). */
  untilAnswered(count: number, since: number, timeoutMs: number): Promise<void>;
  /** Stops sending and waits for the turns in flight (each bounded by the deadline). */
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function sendTurn(options: LoadOptions, conversationId: string, content: string): Promise<TurnRecord> {
  const startedAt = performance.now();
  try {
    const response = await fetch(`${options.apiUrl}/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content }),
      signal: AbortSignal.timeout(options.deadlineMs),
    });
    const text = await response.text();
    let body: TurnBody | undefined;
    try {
      body = JSON.parse(text) as TurnBody;
    } catch {
      body = undefined;
    }
    return {
      conversationId,
      content,
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body,
      startedAt,
      endedAt: performance.now(),
      hung: false,
    };
  } catch (err) {
    const hung = (err as Error).name === 'TimeoutError';
    return {
      conversationId,
      content,
      status: 0,
      retryAfter: null,
      body: undefined,
      startedAt,
      endedAt: performance.now(),
      hung,
      failure: (err as Error).message,
    };
  }
}

export function startLoad(options: LoadOptions): Load {
  const records: TurnRecord[] = [];
  let stopping = false;
  const clients = Array.from({ length: options.clients }, async (_, client) => {
    const conversationId = `${options.label}-c${client}`;
    for (let n = 0; !stopping; n++) {
      const record = await sendTurn(
        options,
        conversationId,
        `[scenario:counted-effect] ${options.label} client ${client} turn ${n}`,
      );
      records.push(record);
      if (record.status === 429 || record.status === 503)
        await sleep(Math.min(1_000, Number(record.retryAfter ?? 1) * 1_000));
      else if (record.status !== 200) await sleep(200);
    }
  });
  return {
    records,
    async untilAnswered(count, since, timeoutMs) {
      const until = performance.now() + timeoutMs;
      for (;;) {
        const answered = records.filter((r) => r.status === 200 && r.startedAt >= since).length;
        if (answered >= count) return;
        if (performance.now() > until)
          throw new Error(
            `only ${answered} of ${count} turns were answered within ${timeoutMs} ms; last: ${JSON.stringify(records.slice(-3))}`,
          );
        await sleep(100);
      }
    },
    async stop() {
      stopping = true;
      await Promise.all(clients);
    },
  };
}
