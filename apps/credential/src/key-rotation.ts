import type { Logger } from '@platform/service-kit';
import type { CredentialDatabase } from './credential-database.js';
import { rewrapKey } from './crypto/envelope.js';
import type { KeyProvider } from './crypto/key-provider.js';
import { ErrorCodes } from './error-codes.js';
import { NamedError } from '@platform/contracts';

export interface KeyUsage {
  keyId: string;
  credentials: number;
  inKeyring: boolean;
  active: boolean;
}

/** A row needs a key-encryption key the keyring does not hold: the service must not start. */
export class MissingKeyError extends NamedError {
  readonly code = ErrorCodes.KEY_MISSING_FROM_KEYRING;
  constructor(readonly missing: ReadonlyArray<{ keyId: string; credentials: number }>) {
    super(
      `the keyring lacks key-encryption key(s) that stored credentials need: ${missing.map((m) => `'${m.keyId}' (${m.credentials} credentials)`).join(', ')}; ` +
        'put the key(s) back in the keyring (a key may be retired only after the rewrap has moved every row off it)',
    );
  }
}

/** Credentials per KEK id, across tenants (the maintenance role sees key columns only). */
export async function keyUsage(db: CredentialDatabase, keys: KeyProvider): Promise<KeyUsage[]> {
  const { rows } = await db.asMaintenance((client) =>
    client.query<{ key_id: string; credentials: string }>(
      'SELECT key_id, count(*) AS credentials FROM credentials GROUP BY key_id ORDER BY key_id',
    ),
  );
  const held = new Set(keys.keyIds());
  const usage = rows.map((r) => ({
    keyId: r.key_id,
    credentials: Number(r.credentials),
    inKeyring: held.has(r.key_id),
    active: r.key_id === keys.activeKeyId,
  }));
  for (const keyId of held)
    if (!usage.some((u) => u.keyId === keyId))
      usage.push({ keyId, credentials: 0, inKeyring: true, active: keyId === keys.activeKeyId });
  return usage.sort((a, b) => a.keyId.localeCompare(b.keyId));
}

/** Refuses to start when any row is wrapped by a key the keyring lacks (names each such key). */
export async function assertKeyringCoversRows(db: CredentialDatabase, keys: KeyProvider): Promise<void> {
  const missing = (await keyUsage(db, keys)).filter((u) => !u.inKeyring && u.credentials > 0);
  if (missing.length > 0) throw new MissingKeyError(missing.map(({ keyId, credentials }) => ({ keyId, credentials })));
}

/**
 * Re-wraps one batch of data keys that an older KEK wraps under the active one, in one
 * transaction. `FOR UPDATE SKIP LOCKED` gives concurrent replicas disjoint batches and never waits
 * on a row a save holds; the version check means a row re-saved meanwhile is left as it is (the
 * save already used the active key). Returns how many rows it moved.
 */
export async function rewrapBatch(db: CredentialDatabase, keys: KeyProvider, batchSize: number): Promise<number> {
  return db.asMaintenance(async (client) => {
    const { rows } = await client.query<{
      tenant_id: string;
      service: string;
      account: string;
      version: string;
      key_id: string;
      wrapped_key: Buffer;
    }>({
      name: 'credential-rewrap-claim',
      text: `SELECT tenant_id, service, account, version, key_id, wrapped_key FROM credentials
             WHERE key_id <> $1 AND key_id = ANY($2::text[]) LIMIT $3 FOR UPDATE SKIP LOCKED`,
      values: [keys.activeKeyId, keys.keyIds(), batchSize],
    });
    for (const row of rows) {
      const identity = {
        tenantId: row.tenant_id,
        service: row.service,
        account: row.account,
        version: Number(row.version),
      };
      const wrapped = await rewrapKey(keys, identity, { keyId: row.key_id, bytes: row.wrapped_key });
      await client.query({
        name: 'credential-rewrap-write',
        text: 'UPDATE credentials SET key_id = $5, wrapped_key = $6 WHERE tenant_id = $1 AND service = $2 AND account = $3 AND version = $4',
        values: [row.tenant_id, row.service, row.account, row.version, wrapped.keyId, wrapped.bytes],
      });
    }
    return rows.length;
  });
}

/** Runs batches until no row is left on an older key (a crash loses nothing: the next run carries on). */
export async function rewrapAll(
  db: CredentialDatabase,
  keys: KeyProvider,
  batchSize: number,
  signal?: AbortSignal,
): Promise<number> {
  let total = 0;
  while (!signal?.aborted) {
    const moved = await rewrapBatch(db, keys, batchSize);
    total += moved;
    if (moved === 0) break;
  }
  return total;
}

/** Each replica's periodic rewrap: once at boot, then every `intervalMs`; errors are logged, never fatal. */
export function startRewrapJob(
  db: CredentialDatabase,
  keys: KeyProvider,
  options: { batchSize: number; intervalMs: number; logger: Logger },
): { stop(): Promise<void> } {
  const abort = new AbortController();
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  const round = () => {
    if (busy) return;
    busy = true;
    running = rewrapAll(db, keys, options.batchSize, abort.signal)
      .then(
        (moved) => {
          if (moved > 0)
            options.logger.info(
              { moved, activeKeyId: keys.activeKeyId },
              'credential data keys re-wrapped under the active key',
            );
        },
        (err: unknown) => options.logger.error({ err }, 'credential rewrap round failed; the next round carries on'),
      )
      .finally(() => {
        busy = false;
      });
  };
  let timer: NodeJS.Timeout | undefined;
  if (options.intervalMs > 0) {
    round();
    timer = setInterval(round, options.intervalMs);
    timer.unref();
  }
  return {
    async stop() {
      if (timer) clearInterval(timer);
      abort.abort();
      await running;
    },
  };
}
