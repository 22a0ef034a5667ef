import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, type SuitePlatform } from './support.js';

// What the running platform answers matches the OpenAPI document it serves: each answer below is
// checked against the schema the document gives for its path, method and status.
interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
}

let platform: SuitePlatform;
let document: OpenApiDocument;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats.default(ajv);

beforeAll(async () => {
  platform = await bootPlatform('openapi_conformance');
  // Public: no token.
  const response = await fetch(`${platform.apiUrl}/v1/openapi.json`);
  expect(response.status).toBe(200);
  document = (await response.json()) as OpenApiDocument;
  ajv.addSchema(document, 'openapi.json');
});
afterAll(async () => platform?.stop());

function validatorFor(path: string, method: string, status: number): ValidateFunction {
  const escaped = path.replace(/~/g, '~0').replace(/\//g, '~1');
  expect(
    document.paths[path]?.[method]?.responses[String(status)]?.content?.['application/json'],
    `${method} ${path} ${status} is documented`,
  ).toBeDefined();
  return ajv.compile({
    $ref: `openapi.json#/paths/${escaped}/${method}/responses/${status}/content/application~1json/schema`,
  });
}

/** Calls the api and checks the answer against the document's schema for `documentedPath`. */
async function conforms<T>(
  method: 'GET' | 'POST',
  url: string,
  documentedPath: string,
  body?: unknown,
  tenant = 'acme',
): Promise<{ status: number; body: T }> {
  const response = await api<T>(platform, method, url, tenant, body);
  const validate = validatorFor(documentedPath, method.toLowerCase(), response.status);
  expect(validate(response.body) ? [] : validate.errors, `${method} ${url} -> ${response.status}`).toEqual([]);
  return response;
}

describe('the running platform answers as its OpenAPI document says', () => {
  it('a turn, its run, the run listing, the history and usage', async () => {
    const turn = await conforms<{ runId: string }>(
      'POST',
      '/v1/conversations/conf-1/messages',
      '/v1/conversations/{conversationId}/messages',
      { content: '[scenario:calculator] What is 12 * (3 + 4)?' },
    );
    expect(turn.status).toBe(200);
    expect((await conforms('GET', `/v1/runs/${turn.body.runId}`, '/v1/runs/{runId}')).status).toBe(200);
    expect((await conforms('GET', '/v1/runs?conversationId=conf-1', '/v1/runs')).status).toBe(200);
    expect(
      (await conforms('GET', '/v1/conversations/conf-1/messages', '/v1/conversations/{conversationId}/messages'))
        .status,
    ).toBe(200);
    expect((await conforms('GET', '/v1/usage', '/v1/usage')).status).toBe(200);
  });

  it('the tool catalog, a tried call and its read-back, approvals and tasks', async () => {
    expect((await conforms('GET', '/v1/tools', '/v1/tools')).status).toBe(200);
    const call = await conforms<{ callId: string }>('POST', '/v1/tools/calculator/calls', '/v1/tools/{name}/calls', {
      arguments: { expression: '1 + 1' },
    });
    expect(call.status).toBe(200);
    expect(
      (await conforms('GET', `/v1/tools/calculator/calls/${call.body.callId}`, '/v1/tools/{name}/calls/{callId}'))
        .status,
    ).toBe(200);
    expect((await conforms('GET', '/v1/approvals', '/v1/approvals')).status).toBe(200);
    const task = await conforms('POST', '/v1/tasks', '/v1/tasks', {
      trigger: { type: 'schedule', cron: '0 8 * * *' },
      action: { instruction: 'Summarize' },
    });
    expect(task.status).toBe(201);
    expect((await conforms('GET', '/v1/tasks', '/v1/tasks')).status).toBe(200);
  });

  it('errors, with their documented statuses', async () => {
    expect((await conforms('GET', '/v1/runs/run_missing', '/v1/runs/{runId}')).status).toBe(404);
    expect(
      (await conforms('POST', '/v1/tools/calculator/calls', '/v1/tools/{name}/calls', { arguments: { expression: 5 } }))
        .status,
    ).toBe(400);
    expect((await conforms('POST', '/v1/tasks', '/v1/tasks', { trigger: { type: 'schedule' } })).status).toBe(400);
  });
});
