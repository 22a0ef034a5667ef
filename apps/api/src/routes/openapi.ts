import { z } from 'zod';
import type { OpenApiDocument } from '../openapi/document.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';

export interface OpenApiRoutesOptions {
  /** The document to serve (built once, on first request). */
  document: () => OpenApiDocument;
}

export const openApiOperations = {
  getOpenApiDocument: defineOperation({
    method: 'GET',
    path: '/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI 3.1 document',
    description:
      "Public like /healthz: it describes the API, not any tenant's data, and client generators fetch it without a token.",
    tags: ['meta'],
    access: 'public',
    responses: {
      200: {
        description: 'The OpenAPI document of the whole HTTP API.',
        body: z.looseObject({
          openapi: z.string(),
          info: z.looseObject({ title: z.string(), version: z.string() }),
          paths: z.record(z.string(), z.unknown()),
        }),
      },
    },
  }),
};

/** Serves the OpenAPI document, generated from the operations' zod schemas. */
export function registerOpenApiRoutes(router: OperationRouter, options: OpenApiRoutesOptions): void {
  router.add(openApiOperations.getOpenApiDocument, async () => ({
    status: 200,
    body: options.document() as z.input<(typeof openApiOperations.getOpenApiDocument.responses)[200]['body']>,
  }));
}
