import type { RunWebhookDelivery } from '../api/types.js';
import { useConsole } from '../console-context.js';
import { formatTime } from '../lib/format.js';
import { StatusBadge } from './badges.js';
import { LoadState } from './states.js';
import { DataTable } from './table.js';
import { useLoad } from './use-load.js';

/** The rows of a run's webhook deliveries: where, how it went, and when it is tried next. */
function WebhookDeliveryTable({ deliveries }: { deliveries: RunWebhookDelivery[] }) {
  if (deliveries.length === 0) return <p className="muted">The run named no webhook.</p>;
  return (
    <DataTable
      caption="Webhook deliveries of the run's end"
      columns={['Webhook id', 'Run status', 'Status', 'Attempts', 'Last error', 'Next attempt', 'Delivered', 'URL']}
    >
      {deliveries.map((d) => (
        <tr key={d.deliveryId}>
          <td>
            <code>{d.deliveryId}</code>
          </td>
          <td>{d.runStatus}</td>
          <td>
            <StatusBadge status={d.status} />
          </td>
          <td>{d.attempts}</td>
          <td>{d.lastError ?? '—'}</td>
          <td>{d.nextAttemptAt ? formatTime(d.nextAttemptAt) : '—'}</td>
          <td>{d.deliveredAt ? formatTime(d.deliveredAt) : '—'}</td>
          <td>
            <code>{d.url}</code>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/** A run's webhook deliveries (GET /v1/runs/{runId}/webhook-deliveries), on the run's page. */
export function WebhookDeliveries({ runId, live }: { runId: string; live: boolean }) {
  const { api } = useConsole();
  const loaded = useLoad(['run-webhook-deliveries', runId, live], () => api.listRunWebhookDeliveries(runId));
  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhook deliveries</h2>
      <LoadState loaded={loaded} what="the webhook deliveries">
        {({ deliveries }) => <WebhookDeliveryTable deliveries={deliveries} />}
      </LoadState>
    </section>
  );
}
