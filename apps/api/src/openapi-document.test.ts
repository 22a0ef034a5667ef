import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOrchestratorEdgeApp } from './test-support/orchestrator-edge-app.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi/document.js';
import { allOperations } from './api-operations.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** `/v1/runs/:runId` as OpenAPI writes it. */
const openApiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const registered = new Set<string>();
const { inject } = useOrchestratorEdgeApp(
  'openapi-test-secret-at-least-32-chars-long',
  {},
  {
    onRoute: (route) => {
      for (const method of [route.method].flat())
        if (method !== 'HEAD') registered.add(`${method} ${openApiPath(route.url)}`);
    },
  },
);
let document: OpenApiDocument;

beforeAll(() => {
  document = buildOpenApiDocument(allOperations);
});

function documented(doc: OpenApiDocument): Set<string> {
  const found = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) if (item?.[method]) found.add(`${method.toUpperCase()} ${path}`);
  }
  return found;
}

/** Every example in the document with the JSON pointer of the schema it illustrates. */
function examplesOf(doc: OpenApiDocument): Array<{ where: string; schemaPointer: string; value: unknown }> {
  const escape = (part: string): string => part.replace(/~/g, '~0').replace(/\//g, '~1');
  const found: Array<{ where: string; schemaPointer: string; value: unknown }> = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item?.[method];
      if (!operation) continue;
      const media: Array<[string, unknown]> = [];
      const body = operation.requestBody as { content?: Record<string, unknown> } | undefined;
      if (body?.content?.['application/json'])
        media.push([`requestBody/content/application~1json`, body.content['application/json']]);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const json = (response as { content?: Record<string, unknown> }).content?.['application/json'];
        if (json) media.push([`responses/${status}/content/application~1json`, json]);
      }
      for (const [pointer, content] of media) {
        const { examples = {} } = content as { examples?: Record<string, { value: unknown }> };
        for (const [name, example] of Object.entries(examples)) {
          found.push({
            where: `${method.toUpperCase()} ${path} ${pointer} example "${name}"`,
            schemaPointer: `/paths/${escape(path)}/${method}/${pointer}/schema`,
            value: example.value,
          });
        }
      }
    }
  }
  return found;
}

describe('the OpenAPI document', () => {
  it('documents every route the api registers, and only those', () => {
    expect(registered.size).toBeGreaterThan(30);
    expect([...documented(document)].sort()).toEqual([...registered].sort());
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has operation ids that are unique', () => {
    const ids = allOperations.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has examples that validate against their schemas', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats.default(ajv);
    ajv.addSchema(structuredClone(document), 'openapi.json');
    const examples = examplesOf(document);
    expect(examples.length).toBeGreaterThan(30);
    for (const example of examples) {
      const validate = ajv.compile({ $ref: `openapi.json#${example.schemaPointer}` });
      expect(validate(example.value) ? [] : validate.errors, example.where).toEqual([]);
    }
  });

  it('rejects a broken example (the check above can fail)', () => {
    const ajv = new Ajv2020({ strict: false, validateSchema: false });
    addFormats.default(ajv);
    ajv.addSchema(structuredClone(document), 'openapi.json');
    const validate = ajv.compile({
      $ref: 'openapi.json#/paths/~1v1~1runs~1{runId}/get/responses/200/content/application~1json/schema',
    });
    expect(validate({ runId: 'run_1' })).toBe(false);
  });

  it('describes bearer JWT security, with public routes open', () => {
    expect(document.components?.securitySchemes?.['bearerAuth']).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(document.paths?.['/healthz']?.get?.security).toEqual([]);
    expect(document.paths?.['/v1/openapi.json']?.get?.security).toEqual([]);
    expect(document.paths?.['/v1/runs']?.get?.security).toBeUndefined();
  });

  it('documents the event streams as text/event-stream with the JSON of their events', () => {
    const stream = document.paths?.['/v1/runs/{runId}/events']?.get?.responses?.['200'] as {
      content: Record<string, Record<string, unknown>>;
    };
    expect(stream.content['text/event-stream']?.['x-event-data']).toEqual({ $ref: '#/components/schemas/RunEvent' });
    expect(document.components?.schemas?.['RunEvent']).toBeDefined();
  });
});

describe('GET /v1/openapi.json', () => {
  it('serves the document without a token', async () => {
    const response = await inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/application\/json/);
    expect(response.json()).toEqual(JSON.parse(JSON.stringify(document)));
  });
});
