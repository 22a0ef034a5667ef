import { createLogger, connectNats, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { inputJsonSchema, schemaHash } from './json-schema.js';
import { serveRunner, type ToolRunner } from './serve-runner.js';
import { ToolCatalog } from './tool-catalog.js';
import { ToolClient } from './tool-client.js';

const logger = createLogger({ service: 'test', level: 'silent' });
// As a tool bridged from elsewhere would have it: a hand-written schema, with a description zod would not produce.
const published = {
  type: 'object',
  properties: { message: { type: 'string', description: 'Message to echo' } },
  required: ['message'],
};

const echo = defineTool({
  name: 'explicit_echo',
  description: 'Echoes a message.',
  input: z.looseObject({ message: z.string() }),
  inputJsonSchema: published,
  handler: async ({ message }) => message,
});

let server: NatsServerHandle;
let nc: NatsConnection;
let runner: ToolRunner;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ servers: server.url, name: 'explicit-schema', logger });
  runner = await serveRunner({ nc, name: 'explicit-runner', version: '1.0.0', tools: [echo], logger });
});

afterAll(async () => {
  await runner.stop(100);
  await nc.close();
  await server.stop();
});

describe('a tool with an explicit input JSON Schema', () => {
  it('keeps the schema on the definition, and leaves other tools without one', () => {
    expect(echo.inputJsonSchema).toEqual(published);
    const plain = defineTool({ name: 'plain', description: 'd', input: z.object({}), handler: async () => 'ok' });
    expect(plain.inputJsonSchema).toBeUndefined();
  });

  it('is published instead of the schema generated from zod, with its own hash', async () => {
    const catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 300 });
    await catalog.refresh();
    const entry = catalog.get('explicit_echo');
    expect(entry?.inputSchema).toEqual(published);
    expect(entry?.schemaHash).toBe(schemaHash(published));
    expect(entry?.schemaHash).not.toBe(schemaHash(inputJsonSchema(echo.input)));
  });

  it('still validates arguments with the zod input', async () => {
    const client = new ToolClient({ nc, logger });
    const base = {
      toolName: 'explicit_echo',
      tenantId: 'acme',
      conversationId: 'conv-1',
      deadlineAt: Date.now() + 2_000,
    };
    expect(await client.call({ ...base, callId: 'call-ok', arguments: { message: 'hi' } })).toMatchObject({
      status: 'success',
      output: 'hi',
    });
    const bad = await client.call({ ...base, callId: 'call-bad', arguments: { message: 7 } });
    expect(bad).toMatchObject({
      status: 'invalid',
      error: { code: 'INVALID_ARGUMENTS', issues: [{ path: 'message' }] },
    });
  });
});
