import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequestSeen {
  system: string;
  user: string;
  schemaName: string;
}

/**
 * A tiny OpenAI-compatible chat server for tests: each request's answer comes from `answer`
 * (a JSON document as text, or an HTTP status to fail with; a promise of either holds the answer back). Stands in until llm-sim scripts
 * extraction answers; the real `openai` client and wire format are exercised either way.
 */
export async function startFakeModel(
  answer: (request: ChatRequestSeen) => string | number | Promise<string | number>,
): Promise<{ url: string; seen: ChatRequestSeen[]; close(): Promise<void> }> {
  const seen: ChatRequestSeen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const parsed = JSON.parse(body) as {
        messages: { role: string; content: string }[];
        response_format?: { json_schema?: { name?: string } };
      };
      const request = {
        system: parsed.messages.find((m) => m.role === 'system')?.content ?? '',
        user: parsed.messages
          .filter((m) => m.role === 'user')
          .map((m) => m.content)
          .join('\n'),
        schemaName: parsed.response_format?.json_schema?.name ?? '',
      };
      seen.push(request);
      void Promise.resolve(answer(request)).then((content) => reply(res, content));
    });
  });
  const reply = (res: http.ServerResponse, content: string | number): void => {
    // A client that went away (a killed test process) gets no answer.
    if (res.destroyed) return;
    if (typeof content === 'number') {
      res
        .writeHead(content, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'scripted failure', type: 'server_error' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: 'fake-extractor',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
      }),
    );
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
