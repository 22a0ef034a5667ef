import http from 'node:http';

/**
 * A JSON POST over keep-alive connections with node:http: the driver shares the machine with the
 * platform, so it uses the cheapest client Node has (fetch costs about twice the CPU per request).
 */
export class JsonClient {
  /**
   * Idle connections are closed by the client before the server would close them: a server closes
   * a keep-alive connection after its own timeout (the api's is 72 s), and a request sent on it at
   * that moment fails with "socket hang up". Node's agent honours the server's `Keep-Alive:
   * timeout=N` hint (less a second) only when the agent has a timeout of its own, so it gets one.
   * It applies to idle connections only: a request in flight is never cut by it.
   */
  private readonly agent: http.Agent;

  constructor(options: { idleSocketTimeoutMs?: number } = {}) {
    this.agent = new http.Agent({
      keepAlive: true,
      maxSockets: Infinity,
      timeout: options.idleSocketTimeoutMs ?? 30_000,
    });
  }

  post(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: unknown }> {
    const payload = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const request = http.request(
        url,
        {
          method: 'POST',
          agent: this.agent,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            try {
              resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
            } catch (err) {
              reject(err instanceof Error ? err : new Error(String(err)));
            }
          });
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
