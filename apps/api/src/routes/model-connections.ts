import { ModelConnectionModel, ModelConnectionName } from '@platform/contracts';
import type { credentialV1 } from '@platform/proto';
import { z } from 'zod';
import { HttpError } from '../http-errors.js';
import type { ModelConnectionCalls } from '../model-connection-calls.js';
import { OptionalTimestamp } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import { ApiErrorCodes } from '../error-codes.js';

interface ModelConnectionRoutesOptions {
  /** Absent when the api has no credential service configured: every route answers 503. */
  connections: ModelConnectionCalls | undefined;
}

const BaseUrl = z.string().min(1).max(2_048).meta({
  description:
    'The OpenAI-compatible endpoint, e.g. `https://api.example.com/v1` (`/chat/completions` is appended). It must reach public addresses only (the egress guard).',
});
const ApiKey = z
  .string()
  .min(1)
  .max(4_096)
  .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters without spaces')
  .meta({ description: 'Sent as `Authorization: Bearer <apiKey>`; stored encrypted, never returned.' });
const Models = z
  .array(ModelConnectionModel)
  .max(64)
  .meta({ description: "Models the endpoint serves; an agent's models must be among them. Empty: any." });

const CreateBody = z
  .object({ name: ModelConnectionName, baseUrl: BaseUrl, apiKey: ApiKey, models: Models.default([]) })
  .strict();
const ReplaceBody = z
  .object({
    baseUrl: BaseUrl,
    /** Absent: the stored key stays (rotate it by sending a new one). */
    apiKey: ApiKey.optional(),
    models: Models.default([]),
    /** Replace only this version; omitted: whatever the version. */
    expectedVersion: z.number().int().min(1).optional(),
  })
  .strict();
const NamePath = z.object({ name: ModelConnectionName });

const ModelConnection = z
  .object({
    name: z.string(),
    baseUrl: z.string(),
    models: z.array(z.string()),
    keyPreview: z.string().meta({ description: "The key's last 4 characters (none for keys under 12)." }),
    version: z.number().int(),
    createdAt: OptionalTimestamp,
    updatedAt: OptionalTimestamp,
  })
  .meta({ id: 'ModelConnection' });

const EXAMPLE = {
  name: 'acme-llm',
  baseUrl: 'https://llm.acme.example/v1',
  models: ['acme-large'],
  keyPreview: '…x9Qa',
  version: 1,
  createdAt: '2026-06-01T09:30:00.000Z',
  updatedAt: '2026-06-01T09:30:00.000Z',
};
const Reply = z.object({ connection: ModelConnection });

const INVALID = {
  params: { code: ApiErrorCodes.INVALID_MODEL_CONNECTION },
  body: { code: ApiErrorCodes.INVALID_MODEL_CONNECTION, issues: true },
};
const UNAVAILABLE = { 503: ['CREDENTIALS_UNAVAILABLE', 'UNAVAILABLE'] } as const;
const WRITE_400 = ['INVALID_MODEL_CONNECTION', 'EGRESS_REFUSED'] as const;
const TAGS = ['model-connections'];

export const modelConnectionOperations = {
  createModelConnection: defineOperation({
    method: 'POST',
    path: '/v1/model-connections',
    operationId: 'createModelConnection',
    summary: 'Register an OpenAI-compatible endpoint and its API key for your agents',
    tags: TAGS,
    access: 'tenant',
    role: 'admin',
    body: CreateBody,
    invalid: INVALID,
    bodyExamples: {
      connection: {
        name: 'acme-llm',
        baseUrl: 'https://llm.acme.example/v1',
        apiKey: 'sk-example-key-0123',
        models: ['acme-large'],
      },
    },
    responses: {
      201: {
        description: 'Registered; the key is not echoed.',
        body: Reply,
        examples: { created: { connection: EXAMPLE } },
      },
    },
    errors: {
      ...UNAVAILABLE,
      400: WRITE_400,
      403: ['NOT_PERMITTED_BY_TIER'],
      409: ['MODEL_CONNECTION_EXISTS'],
      429: ['QUOTA_EXCEEDED'],
    },
  }),
  listModelConnections: defineOperation({
    method: 'GET',
    path: '/v1/model-connections',
    operationId: 'listModelConnections',
    summary: "The tenant's model connections (never a key)",
    tags: TAGS,
    access: 'tenant',
    role: 'viewer',
    responses: {
      200: {
        description: 'By name.',
        body: z.object({ connections: z.array(ModelConnection) }),
        examples: { one: { connections: [EXAMPLE] } },
      },
    },
    errors: UNAVAILABLE,
  }),
  getModelConnection: defineOperation({
    method: 'GET',
    path: '/v1/model-connections/{name}',
    operationId: 'getModelConnection',
    summary: 'One model connection (never its key)',
    tags: TAGS,
    access: 'tenant',
    role: 'viewer',
    params: NamePath,
    invalid: INVALID,
    responses: { 200: { description: 'The connection.', body: Reply, examples: { one: { connection: EXAMPLE } } } },
    errors: { ...UNAVAILABLE, 404: ['MODEL_CONNECTION_NOT_FOUND'] },
  }),
  replaceModelConnection: defineOperation({
    method: 'PUT',
    path: '/v1/model-connections/{name}',
    operationId: 'replaceModelConnection',
    summary: "Change a connection's URL or models, or rotate its key",
    tags: TAGS,
    access: 'tenant',
    role: 'admin',
    params: NamePath,
    body: ReplaceBody,
    invalid: INVALID,
    bodyExamples: {
      rotate: { baseUrl: 'https://llm.acme.example/v1', apiKey: 'sk-example-key-4567', models: ['acme-large'] },
    },
    responses: {
      200: {
        description: 'Replaced; the version grew by one.',
        body: Reply,
        examples: { one: { connection: EXAMPLE } },
      },
    },
    errors: {
      ...UNAVAILABLE,
      400: WRITE_400,
      404: ['MODEL_CONNECTION_NOT_FOUND'],
      409: ['VERSION_CONFLICT'],
    },
  }),
  deleteModelConnection: defineOperation({
    method: 'DELETE',
    path: '/v1/model-connections/{name}',
    operationId: 'deleteModelConnection',
    summary: 'Delete a model connection and its key',
    tags: TAGS,
    access: 'tenant',
    role: 'admin',
    params: NamePath,
    invalid: INVALID,
    responses: { 204: { description: "Deleted; agents naming it fail their next turn until they're changed." } },
    errors: { ...UNAVAILABLE, 404: ['MODEL_CONNECTION_NOT_FOUND'] },
  }),
};

function connectionBody(info: credentialV1.ModelConnectionInfo | undefined): z.infer<typeof ModelConnection> {
  return {
    name: info?.name ?? '',
    baseUrl: info?.baseUrl ?? '',
    models: info?.models ?? [],
    keyPreview: info?.keyPreview ?? '',
    version: info?.version ?? 0,
    createdAt: info?.createdAt?.toISOString() ?? null,
    updatedAt: info?.updatedAt?.toISOString() ?? null,
  };
}

/**
 * Model connections of the caller's tenant (docs/models.md, "Models the tenant brings"): register
 * an endpoint and key, list, read, replace (new URL, models or key) and delete. No route returns
 * a key: only the orchestrator reads it, to call the model.
 */
export function registerModelConnectionRoutes(router: OperationRouter, options: ModelConnectionRoutesOptions): void {
  const calls = (): ModelConnectionCalls => {
    if (!options.connections)
      throw new HttpError(
        503,
        ApiErrorCodes.CREDENTIALS_UNAVAILABLE,
        'this deployment has no credential service configured',
      );
    return options.connections;
  };

  router.add(modelConnectionOperations.createModelConnection, async ({ body, request }) => {
    const { tenantId, subject, tier } = principalOf(request);
    const { connection } = await calls().create({ tenantId, ...body, subject, tier: tier ?? '' });
    return { status: 201, body: { connection: connectionBody(connection) } };
  });

  router.add(modelConnectionOperations.listModelConnections, async ({ request }) => {
    const { tenantId, subject } = principalOf(request);
    const { connections } = await calls().list({ tenantId, subject });
    return { status: 200, body: { connections: connections.map(connectionBody) } };
  });

  router.add(modelConnectionOperations.getModelConnection, async ({ params, request }) => {
    const { tenantId, subject } = principalOf(request);
    const { connection } = await calls().get({ tenantId, name: params.name, subject });
    return { status: 200, body: { connection: connectionBody(connection) } };
  });

  router.add(modelConnectionOperations.replaceModelConnection, async ({ params, body, request }) => {
    const { tenantId, subject, tier } = principalOf(request);
    const { connection } = await calls().replace({
      tenantId,
      name: params.name,
      baseUrl: body.baseUrl,
      apiKey: body.apiKey,
      models: body.models,
      expectedVersion: body.expectedVersion,
      subject,
      tier: tier ?? '',
    });
    return { status: 200, body: { connection: connectionBody(connection) } };
  });

  router.add(modelConnectionOperations.deleteModelConnection, async ({ params, request }) => {
    const { tenantId, subject } = principalOf(request);
    await calls().remove({ tenantId, name: params.name, subject });
    return { status: 204 };
  });
}
