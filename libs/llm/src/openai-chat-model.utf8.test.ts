// A provider whose reply is not UTF-8: the client reads it with U+FFFD, and the response says so
// (a diagnostic the loop records with the step), streamed or not, however the bytes are chunked.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from './openai-chat-model.js';

let server: Server;
let baseURL: string;
/** Request headers as the server saw them (the watch header must never reach the provider). */
const seenHeaders: Array<Record<string, unknown>> = [];

const completion = (content: Buffer) =>
  Buffer.concat([
    Buffer.from(
      '{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"caf',
    ),
    content,
    Buffer.from('"}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}'),
  ]);

beforeAll(async () => {
  server = createServer((request, response) => {
    seenHeaders.push({ ...request.headers });
    let body = '';
    request.on('data', (c: Buffer) => (body += c.toString()));
    request.on('end', () => {
      const wanted = JSON.parse(body) as { messages: Array<{ content: string }>; stream?: boolean };
      const latin1 = wanted.messages[0]!.content === 'latin1';
      const bytes = latin1 ? Buffer.from([0xe9]) : Buffer.from('é');
      if (!wanted.stream) {
        response.writeHead(200, { 'content-type': 'application/json' }).end(completion(bytes));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: Buffer | string) =>
        Buffer.concat([
          Buffer.from(
            'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"',
          ),
          Buffer.from(delta),
          Buffer.from('"},"finish_reason":null}]}\n\n'),
        ]);
      // A well-formed character split across two writes (two TCP chunks) is not a bad byte.
      const event = chunk(Buffer.concat([Buffer.from('caf'), bytes, Buffer.from('€')]));
      const split = event.indexOf(Buffer.from('€')) + 1;
      response.write(event.subarray(0, split));
      setTimeout(() => {
        response.write(event.subarray(split));
        response.end(
          'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
        );
      }, 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const ask = (content: string, stream: boolean) =>
  new OpenAIChatModel({ baseURL, apiKey: 'k', model: 'm', timeoutMs: 5_000 }).complete({
    messages: [{ role: 'user', content }],
    tools: [],
    toolChoice: 'auto',
    ...(stream ? { onTextDelta: () => undefined } : {}),
  });

describe('a reply that is not UTF-8', () => {
  it('is read with U+FFFD and carries a diagnostic naming the first bad byte', async () => {
    const response = await ask('latin1', false);
    expect(response.message.content).toBe('caf\ufffd');
    const offset = completion(Buffer.from([0xe9])).indexOf(Buffer.from('caf')) + 3;
    expect(response.diagnostics).toEqual([
      `the model's reply was not valid UTF-8 (first bad byte at offset ${offset} of the body); bad bytes were read as U+FFFD`,
    ]);
    expect(seenHeaders.at(-1)).not.toHaveProperty('x-platform-utf8-watch');
  });

  it('is noticed in a streamed reply too', async () => {
    const response = await ask('latin1', true);
    expect(response.message.content).toContain('caf\ufffd');
    expect(response.diagnostics).toEqual([expect.stringContaining('not valid UTF-8')]);
  });

  it('leaves a well-formed reply without diagnostics, a character split across chunks included', async () => {
    expect((await ask('utf8', false)).diagnostics).toBeUndefined();
    const streamed = await ask('utf8', true);
    expect(streamed.message.content).toBe('café€');
    expect(streamed.diagnostics).toBeUndefined();
  });
});
