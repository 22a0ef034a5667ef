import { AGENTS_CHANGED_SUBJECT_PREFIX, compositeKey } from '@platform/contracts';
import { jsonBody, type Logger, type NatsConnection } from '@platform/service-kit';
import { z } from 'zod';
import type { AgentStore } from './agent-store.js';
import type { AgentRecord, ConversationPinRecord } from './agent-types.js';

/** Where writes to a tenant's agents (and pins) are announced: `<prefix>.<compositeKey(tenant)>`. */
export function agentsChangedSubject(tenantId: string): string {
  return `${AGENTS_CHANGED_SUBJECT_PREFIX}.${compositeKey(tenantId)}`;
}

const ChangedMessage = z.object({ tenantId: z.string() });

/** Tenants whose lookups are kept per replica; past it the least recently used one is forgotten. */
const MAX_TENANTS = 10_000;
/** Lookups kept per tenant (agents by id and name, pins by conversation). */
const MAX_ENTRIES_PER_TENANT = 1_000;
/** A lookup older than this is read again even without a change notice (a notice lost in a reconnect). */
const ENTRY_TTL_MS = 30_000;

interface Entry<T> {
  value: T;
  at: number;
}

/** One tenant's cached lookups, with the generation notices bump (a read that raced a write is not kept). */
class TenantEntries {
  generation = 0;
  readonly agents = new Map<string, Entry<AgentRecord | undefined>>();
  readonly pins = new Map<string, Entry<ConversationPinRecord | undefined>>();
}

/**
 * Per replica: a tenant's agents by id or name (with their active version) and its conversations'
 * pins, read from the store once and then answered from memory. Every write is announced over NATS
 * after its commit (`announce`); every replica, this one included, then forgets the tenant's
 * lookups, so the next message anywhere reads the new state (within a NATS round trip). Negative
 * answers (no such agent: a built-in profile's name) are kept too, so built-in agents cost no query.
 */
export class AgentDirectory {
  private readonly tenants = new Map<string, TenantEntries>();
  private subscription: { unsubscribe(): void } | undefined;

  constructor(
    private readonly store: Pick<AgentStore, 'find' | 'pinOf'>,
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Listens for changes of every tenant (call once at boot). */
  start(): void {
    const sub = this.nc.subscribe(`${AGENTS_CHANGED_SUBJECT_PREFIX}.*`);
    this.subscription = sub;
    void (async () => {
      for await (const msg of sub) {
        const parsed = ChangedMessage.safeParse(jsonBody(msg));
        if (parsed.success) this.forget(parsed.data.tenantId);
        else this.logger.warn({ subject: msg.subject }, 'ignored a malformed agents-changed notice');
      }
    })();
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }

  /** Tells every replica the tenant's agents changed (after the write committed); forgets here at once. */
  announce(tenantId: string): void {
    this.forget(tenantId);
    this.nc.publish(agentsChangedSubject(tenantId), JSON.stringify({ tenantId }));
  }

  async agent(tenantId: string, ref: string): Promise<AgentRecord | undefined> {
    return this.cached(
      tenantId,
      (t) => t.agents,
      ref,
      () => this.store.find(tenantId, ref),
    );
  }

  async pin(tenantId: string, conversationId: string): Promise<ConversationPinRecord | undefined> {
    return this.cached(
      tenantId,
      (t) => t.pins,
      conversationId,
      () => this.store.pinOf(tenantId, conversationId),
    );
  }

  private forget(tenantId: string): void {
    const entries = this.tenants.get(tenantId);
    if (!entries) return;
    entries.generation += 1;
    entries.agents.clear();
    entries.pins.clear();
  }

  private async cached<T>(
    tenantId: string,
    mapOf: (t: TenantEntries) => Map<string, Entry<T>>,
    key: string,
    read: () => Promise<T>,
  ): Promise<T> {
    const entries = this.entriesOf(tenantId);
    const map = mapOf(entries);
    const hit = map.get(key);
    if (hit && this.now() - hit.at < ENTRY_TTL_MS) return hit.value;
    const generation = entries.generation;
    const value = await read();
    // A notice that came while reading may describe a write the read did not see: not kept then.
    if (entries.generation === generation) {
      if (map.size >= MAX_ENTRIES_PER_TENANT) map.delete(map.keys().next().value!);
      map.set(key, { value, at: this.now() });
    }
    return value;
  }

  private entriesOf(tenantId: string): TenantEntries {
    let entries = this.tenants.get(tenantId);
    if (entries) {
      // Most recently used last, so the first is the one to forget.
      this.tenants.delete(tenantId);
      this.tenants.set(tenantId, entries);
      return entries;
    }
    if (this.tenants.size >= MAX_TENANTS) this.tenants.delete(this.tenants.keys().next().value!);
    entries = new TenantEntries();
    this.tenants.set(tenantId, entries);
    return entries;
  }
}
