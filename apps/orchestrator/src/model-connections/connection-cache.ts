import { compositeKey, ModelConnectionChanged, MODEL_CONNECTION_CHANGED_SUBJECT_PREFIX } from '@platform/contracts';
import { jsonBody, type Logger, type NatsConnection } from '@platform/service-kit';
import type { ModelConnection } from './model-connections.js';

/** How many connections a replica keeps and for how long (MODEL_CONNECTION_CACHE_SIZE, _TTL_MS). */
interface ConnectionCacheOptions {
  maxEntries: number;
  ttlMs: number;
  /** Milliseconds now; tests pass their own clock. */
  now?: () => number;
}

interface Entry {
  connection: ModelConnection;
  expiresAt: number;
}

/**
 * The replica's model connections, by tenant and name (`compositeKey`, so no two tenants' keys
 * meet): bounded (least recently used dropped first), each kept for at most `ttlMs`, and dropped
 * at once when the api announces a change (`listen`). A lookup that started before a change
 * notice does not store what it read (`epoch`), so a notice is never undone by a slow read.
 */
export class ConnectionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private changes = 0;

  constructor(private readonly options: ConnectionCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Counts change notices; pass it back to `set` to store only when none came in between. */
  get epoch(): number {
    return this.changes;
  }

  get(tenantId: string, name: string): ModelConnection | undefined {
    const key = compositeKey(tenantId, name);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry);
    return entry.connection;
  }

  set(tenantId: string, connection: ModelConnection, epoch: number): void {
    if (epoch !== this.changes) return;
    const key = compositeKey(tenantId, connection.name);
    this.entries.delete(key);
    this.entries.set(key, { connection, expiresAt: this.now() + this.options.ttlMs });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  invalidate(tenantId: string, name: string): void {
    this.changes++;
    this.entries.delete(compositeKey(tenantId, name));
  }

  /**
   * Drops connections the api announces as changed. A malformed notice is logged and skipped; the
   * loop never ends on one. Returns a stop function (the subscription's end).
   */
  listen(nc: NatsConnection, logger: Logger): { stop(): void; ready: Promise<void> } {
    const sub = nc.subscribe(`${MODEL_CONNECTION_CHANGED_SUBJECT_PREFIX}.>`);
    void (async () => {
      for await (const msg of sub) {
        try {
          const parsed = ModelConnectionChanged.safeParse(jsonBody(msg));
          if (parsed.success) this.invalidate(parsed.data.tenantId, parsed.data.name);
          else logger.warn({ subject: msg.subject }, 'ignored a malformed model connection notice');
        } catch (err) {
          logger.warn({ err, subject: msg.subject }, 'ignored an unreadable model connection notice');
        }
      }
    })();
    return { stop: () => sub.unsubscribe(), ready: nc.flush() };
  }
}
