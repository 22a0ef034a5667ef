import type { ApiClient } from '../api-client.js';
import { fields, table } from '../format.js';

/** A delivery as GET /v1/runs/{runId}/webhook-deliveries lists it. */
interface WebhookDelivery {
  deliveryId: string;
  runStatus: string;
  url: string;
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

/** `runs deliveries <runId>`: the webhook deliveries of a run's end, oldest first. */
export async function listRunDeliveries(api: ApiClient, runId: string): Promise<{ json: unknown; text: string }> {
  const page = await api.get<{ deliveries: WebhookDelivery[] }>(
    `v1/runs/${encodeURIComponent(runId)}/webhook-deliveries`,
  );
  if (page.deliveries.length === 0) return { json: page, text: 'no webhook deliveries (the run named no webhook)\n' };
  const text = table(
    ['WEBHOOK-ID', 'RUN STATUS', 'STATUS', 'ATTEMPTS', 'LAST ERROR', 'NEXT ATTEMPT', 'DELIVERED', 'URL'],
    page.deliveries.map((d) => [
      d.deliveryId,
      d.runStatus,
      d.status,
      d.attempts,
      d.lastError,
      d.nextAttemptAt,
      d.deliveredAt,
      d.url,
    ]),
  );
  return { json: page, text };
}

/** `webhook-settings [--rotate-secret]`: the tenant's default run webhook URL and signing secret (admin). */
export async function webhookSettings(api: ApiClient, rotateSecret: boolean): Promise<{ json: unknown; text: string }> {
  const settings = rotateSecret
    ? await api.send<{ url: string | null; secret: string; updatedAt: string | null }>('PUT', 'v1/webhook-settings', {
        rotateSecret: true,
      })
    : await api.get<{ url: string | null; secret: string; updatedAt: string | null }>('v1/webhook-settings');
  return {
    json: settings,
    text: fields([
      ['default url', settings.url],
      ['secret', settings.secret],
      ['updated', settings.updatedAt],
    ]),
  };
}
