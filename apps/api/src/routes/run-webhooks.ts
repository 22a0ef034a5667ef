import { RunId } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { z } from 'zod';
import { OptionalTimestamp } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import { ApiErrorCodes } from '../error-codes.js';

export interface RunWebhookRoutesOptions {
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
}

const RunPath = z.object({ runId: RunId });

const WebhookDelivery = z
  .object({
    deliveryId: z.string().meta({ description: 'The `webhook-id` header of every attempt: receivers dedupe on it.' }),
    runId: z.string(),
    runStatus: z
      .string()
      .meta({ description: 'The status the run ended with: completed, waiting, failed or cancelled.' }),
    url: z.string().meta({ description: 'Where it goes, redacted (no user name, password or query value).' }),
    status: z.enum(['pending', 'sending', 'delivered', 'failed']),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    createdAt: OptionalTimestamp,
    nextAttemptAt: OptionalTimestamp,
    deliveredAt: OptionalTimestamp,
  })
  .meta({ id: 'RunWebhookDelivery' });

const WebhookSettings = z
  .object({
    url: z.string().nullable().meta({ description: "The default webhook of the tenant's runs; null for none." }),
    secret: z.string().meta({ description: 'Signs every run webhook of the tenant (Standard Webhooks).' }),
    updatedAt: OptionalTimestamp,
  })
  .meta({ id: 'WebhookSettings' });

const WebhookSettingsChange = z
  .object({
    url: z.string().min(1).max(2048).nullable().optional().meta({
      description: 'The default webhook URL (https; through the egress guard); null clears it.',
    }),
    rotateSecret: z
      .boolean()
      .optional()
      .meta({ description: 'Make a new signing secret; the old one stops signing at once.' }),
  })
  .strict();

const SETTINGS_EXAMPLE = {
  url: 'https://hooks.example.com/runs',
  secret: 'whsec_4pWm0Yc4mM7w1ZT0tJ5bS1pQ3yq9kq2Z',
  updatedAt: '2026-06-01T09:30:00.000Z',
};

const WEBHOOK_URL_ERRORS = ['INVALID_WEBHOOK_URL', 'EGRESS_REFUSED'] as const;

export const runWebhookOperations = {
  listRunWebhookDeliveries: defineOperation({
    method: 'GET',
    path: '/v1/runs/{runId}/webhook-deliveries',
    operationId: 'listRunWebhookDeliveries',
    summary: "The webhook deliveries of a run's end: attempts, status, last error",
    tags: ['runs'],
    access: 'tenant',
    role: 'viewer',
    params: RunPath,
    invalid: { params: { code: ApiErrorCodes.INVALID_RUN_ID, message: 'runId is invalid' } },
    responses: {
      200: {
        description: 'The deliveries, oldest first (none when the run named no webhook).',
        body: z.object({ deliveries: z.array(WebhookDelivery) }),
        examples: {
          delivered: {
            deliveries: [
              {
                deliveryId: 'msg_5d41402abc4b2a76b9719d911017c592',
                runId: 'run_1',
                runStatus: 'completed',
                url: 'https://hooks.example.com/runs',
                status: 'delivered',
                attempts: 2,
                lastError: null,
                createdAt: '2026-06-01T09:30:02.000Z',
                nextAttemptAt: null,
                deliveredAt: '2026-06-01T09:30:03.100Z',
              },
            ],
          },
        },
      },
    },
    errors: {},
  }),
  getWebhookSettings: defineOperation({
    method: 'GET',
    path: '/v1/webhook-settings',
    operationId: 'getWebhookSettings',
    summary: "The tenant's run webhook settings: default URL and signing secret",
    tags: ['runs'],
    access: 'tenant',
    role: 'admin',
    responses: { 200: { description: 'The settings.', body: WebhookSettings, examples: { set: SETTINGS_EXAMPLE } } },
    errors: {},
  }),
  updateWebhookSettings: defineOperation({
    method: 'PUT',
    path: '/v1/webhook-settings',
    operationId: 'updateWebhookSettings',
    summary: "Set or clear the tenant's default run webhook URL, or rotate the signing secret (fields left out stay)",
    tags: ['runs'],
    access: 'tenant',
    role: 'admin',
    body: WebhookSettingsChange,
    bodyExamples: { setUrl: { url: 'https://hooks.example.com/runs' }, rotate: { rotateSecret: true } },
    responses: { 200: { description: 'The settings.', body: WebhookSettings, examples: { set: SETTINGS_EXAMPLE } } },
    errors: { 400: WEBHOOK_URL_ERRORS },
  }),
};

function settingsBody(settings: orchestratorV1.WebhookSettings | undefined) {
  return {
    url: settings?.url || null,
    secret: settings?.secret ?? '',
    updatedAt: settings?.updatedAt?.toISOString() ?? null,
  };
}

/** Webhooks when a run ends (docs/conversations.md): a run's deliveries, and the tenant's settings. */
export function registerRunWebhookRoutes(router: OperationRouter, options: RunWebhookRoutesOptions): void {
  router.add(runWebhookOperations.listRunWebhookDeliveries, async ({ params, request }) => {
    const { tenantId } = principalOf(request);
    const { deliveries } = await options.orchestrator.listRunWebhookDeliveries({ tenantId, runId: params.runId });
    return {
      status: 200,
      body: {
        deliveries: deliveries.map((d) => ({
          deliveryId: d.deliveryId,
          runId: d.runId,
          runStatus: d.runStatus,
          url: d.url,
          status: d.status as z.infer<typeof WebhookDelivery>['status'],
          attempts: d.attempts,
          lastError: d.lastError || null,
          createdAt: d.createdAt?.toISOString() ?? null,
          nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
          deliveredAt: d.deliveredAt?.toISOString() ?? null,
        })),
      },
    };
  });

  router.add(runWebhookOperations.getWebhookSettings, async ({ request }) => {
    const { tenantId } = principalOf(request);
    const { settings } = await options.orchestrator.getWebhookSettings({ tenantId });
    return { status: 200, body: settingsBody(settings) };
  });

  router.add(runWebhookOperations.updateWebhookSettings, async ({ body, request }) => {
    const { tenantId } = principalOf(request);
    const { settings } = await options.orchestrator.updateWebhookSettings({
      tenantId,
      ...(body.url !== undefined ? { url: body.url ?? '' } : {}),
      rotateSecret: body.rotateSecret ?? false,
    });
    return { status: 200, body: settingsBody(settings) };
  });
}
