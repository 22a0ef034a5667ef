import type { ApiClient } from '../api-client.js';
import { fields, oneLine, table } from '../format.js';

interface DeadLetterPage {
  deadLetters: Array<{
    seq: number;
    tenantId: string | null;
    runId: string | null;
    reason: string;
    detail: string;
    deliveries: number;
    deadAt: string;
  }>;
  total: number;
  nextAfterSeq: number | null;
}

/** `memory dead-letters`: finished turns memory could not ingest (operators; all tenants unless `--tenant`). */
export async function listDeadLetters(
  api: ApiClient,
  options: { tenant?: string | undefined; limit: number; afterSeq: number },
): Promise<{ json: unknown; text: string }> {
  const page = await api.get<DeadLetterPage>('v1/admin/memory/dead-letters', {
    tenant: options.tenant,
    limit: options.limit,
    afterSeq: options.afterSeq || undefined,
  });
  let text = table(
    ['SEQ', 'TENANT', 'RUN', 'REASON', 'DELIVERIES', 'DEAD AT', 'DETAIL'],
    page.deadLetters.map((d) => [d.seq, d.tenantId, d.runId, d.reason, d.deliveries, d.deadAt, oneLine(d.detail, 80)]),
  );
  text += `${page.deadLetters.length} shown, ${page.total} in the dead-letter stream${page.nextAfterSeq !== null ? `; more with --after-seq ${page.nextAfterSeq}` : ''}\n`;
  return { json: page, text };
}

interface KeyStatus {
  keys: Array<{ keyId: string; credentials: number; active: boolean; inKeyring: boolean }>;
  rewrap: { total: number; onActiveKey: number; remaining: number; done: boolean };
}

/** `credentials keys`: each key-encryption key, how many credentials it wraps, and how far rewrapping to the active key has come. */
export async function credentialKeys(api: ApiClient): Promise<{ json: unknown; text: string }> {
  const status = await api.get<KeyStatus>('v1/admin/credential-keys');
  const percent = status.rewrap.total === 0 ? 100 : Math.floor((status.rewrap.onActiveKey / status.rewrap.total) * 100);
  const text =
    table(
      ['KEY', 'ACTIVE', 'IN KEYRING', 'CREDENTIALS'],
      status.keys.map((k) => [
        k.keyId,
        k.active ? 'yes' : 'no',
        k.inKeyring ? 'yes' : 'NO (cannot decrypt)',
        k.credentials,
      ]),
    ) +
    '\n' +
    fields([
      ['rewrap', status.rewrap.done ? 'done' : 'in progress'],
      ['on active key', `${status.rewrap.onActiveKey} of ${status.rewrap.total} (${percent}%)`],
      ['remaining', status.rewrap.remaining],
    ]);
  return { json: status, text };
}
