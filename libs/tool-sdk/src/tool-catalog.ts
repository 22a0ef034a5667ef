import svcm from '@nats-io/services';
import type { ServiceInfo } from '@nats-io/services';
import { parseToolDescriptor, TOOL_PROTOCOL_VERSION, ToolMetadataKey, type ToolDescriptor } from '@platform/contracts';
import type { Logger, NatsConnection } from '@platform/service-kit';
import { readExposeMetadata } from './agent-metadata.js';
import { readDedupeMetadata } from './dedupe-protocol.js';
import { compareVersions } from './versions.js';

/** A tool in the catalog, with the runner that serves it. */
export interface CatalogEntry extends ToolDescriptor {
  runner: string;
  /** Instance ids of the runner replicas seen serving this tool. */
  instances: string[];
  /** Every replica dedupes calls by call id (effectively-once), so a lost answer may be retried. */
  dedupe: boolean;
  /**
   * `false` when the runner publishes `platform.expose: "false"`: keep it out of the model's tool
   * list (it stays callable, e.g. by workflows). Absent means the model may see it.
   */
  exposeToModel?: false;
}

export interface ToolCatalogOptions {
  nc: NatsConnection;
  logger: Logger;
  /** How long one discovery round waits for runners to answer `$SRV.INFO`. Default 500 ms. */
  discoveryWaitMs?: number;
  /** Pause between discovery rounds. Default 5 s. */
  refreshIntervalMs?: number;
  /**
   * How long a tool that disappeared is remembered as "offline", so a call to it is answered
   * "no runner serves it right now" rather than "unknown tool". Default 10 min.
   */
  rememberOfflineMs?: number;
  /**
   * How long a tool stays listed after a discovery round in which no runner answered for it. A
   * busy runner can miss one round's short wait; one miss must not empty the catalog. A runner
   * that is really gone is still answered "unavailable" at once (NATS has no responders).
   * Default: three refresh intervals.
   */
  staleAfterMs?: number;
}

/** What the catalog knows about a name: online, recently offline, or never seen. */
export type ToolLookup =
  { state: 'online'; entry: CatalogEntry } | { state: 'offline'; entry: CatalogEntry } | { state: 'unknown' };

interface Offer {
  descriptor: ToolDescriptor;
  runner: string;
  instance: string;
  dedupe?: boolean;
  exposeToModel?: boolean;
}

/**
 * Resolves offers of one tool name. Offers from replicas of the same (runner, version, schema)
 * merge. Otherwise the highest version wins; two different runners offering the same highest
 * version with different schemas are a conflict and the tool is withheld, never silently mixed.
 */
export function resolveOffers(name: string, offers: Offer[], logger: Logger): CatalogEntry | undefined {
  const sorted = [...offers].sort((a, b) => compareVersions(b.descriptor.version, a.descriptor.version));
  const best = sorted[0];
  if (!best) return undefined;
  const top = sorted.filter((o) => compareVersions(o.descriptor.version, best.descriptor.version) === 0);
  const incompatible = top.filter(
    (o) => o.descriptor.schemaHash !== best.descriptor.schemaHash || o.runner !== best.runner,
  );
  if (incompatible.length > 0) {
    logger.error(
      {
        tool: name,
        version: best.descriptor.version,
        runners: [...new Set(top.map((o) => `${o.runner}:${o.descriptor.schemaHash}`))],
      },
      'tool conflict: different runners offer the same tool name and version with different schemas; the tool is withheld until one is fixed',
    );
    return undefined;
  }
  const older = sorted.filter((o) => compareVersions(o.descriptor.version, best.descriptor.version) !== 0);
  if (older.length > 0) {
    logger.info(
      { tool: name, chosen: best.descriptor.version, ignored: [...new Set(older.map((o) => o.descriptor.version))] },
      'tool offered in several versions; the highest wins',
    );
  }
  return {
    ...best.descriptor,
    runner: best.runner,
    instances: [...new Set(top.map((o) => o.instance))],
    dedupe: top.every((o) => o.dedupe === true),
    ...(top.some((o) => o.exposeToModel === false) ? { exposeToModel: false as const } : {}),
  };
}

/**
 * The live catalog of tools, built from the NATS micro-service discovery protocol. Runners that
 * start or stop appear and disappear at the next refresh; no restart is needed.
 */
export class ToolCatalog {
  private entries = new Map<string, CatalogEntry>();
  private readonly offline = new Map<string, { entry: CatalogEntry; since: number }>();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private nextRound: Promise<void> | undefined;
  private readonly discoveryWaitMs: number;
  private readonly refreshIntervalMs: number;
  private readonly rememberOfflineMs: number;
  private readonly staleAfterMs: number;
  private readonly lastSeen = new Map<string, number>();

  constructor(private readonly options: ToolCatalogOptions) {
    this.discoveryWaitMs = options.discoveryWaitMs ?? 500;
    this.refreshIntervalMs = options.refreshIntervalMs ?? 5_000;
    this.rememberOfflineMs = options.rememberOfflineMs ?? 10 * 60_000;
    this.staleAfterMs = options.staleAfterMs ?? 3 * this.refreshIntervalMs;
  }

  /** Discovers once, then keeps refreshing in the background. */
  async start(): Promise<void> {
    await this.refresh();
    const tick = (): void => {
      this.timer = setTimeout(() => {
        void this.refresh().finally(tick);
      }, this.refreshIntervalMs);
      this.timer.unref();
    };
    tick();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The online entry for a tool name, if a runner serves it. */
  get(name: string): CatalogEntry | undefined {
    return this.entries.get(name);
  }

  lookup(name: string): ToolLookup {
    const entry = this.entries.get(name);
    if (entry) return { state: 'online', entry };
    const gone = this.offline.get(name);
    if (gone && Date.now() - gone.since < this.rememberOfflineMs) return { state: 'offline', entry: gone.entry };
    return { state: 'unknown' };
  }

  list(): CatalogEntry[] {
    return [...this.entries.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Runs a discovery round that starts no earlier than this call. A round already under way may
   * have asked the runners before whatever made the caller ask (a deploy, a runner stopping), so
   * callers during it share one more round that starts when it ends.
   */
  refresh(): Promise<void> {
    if (!this.refreshing) {
      this.refreshing = this.discover().finally(() => {
        this.refreshing = undefined;
      });
      return this.refreshing;
    }
    this.nextRound ??= this.refreshing.then(() => {
      this.nextRound = undefined;
      return this.refresh();
    });
    return this.nextRound;
  }

  private async discover(): Promise<void> {
    const { logger } = this.options;
    const infos: ServiceInfo[] = [];
    try {
      const client = new svcm.Svcm(this.options.nc).client({ strategy: 'timer', maxWait: this.discoveryWaitMs });
      for await (const info of await client.info()) infos.push(info);
    } catch (err) {
      // No runner online answers with "no responders": that is an empty catalog, not a failure.
      if (!/no responders/i.test((err as Error).message)) {
        logger.warn({ err }, 'tool discovery failed; keeping the previous catalog');
        return;
      }
    }
    const offers = new Map<string, Offer[]>();
    for (const info of infos) {
      for (const endpoint of info.endpoints ?? []) {
        if (endpoint.metadata?.[ToolMetadataKey.protocol] !== TOOL_PROTOCOL_VERSION) continue;
        try {
          const descriptor = parseToolDescriptor(endpoint.name, endpoint.metadata);
          const list = offers.get(descriptor.name) ?? [];
          list.push({
            descriptor,
            runner: info.name,
            instance: info.id,
            dedupe: readDedupeMetadata(endpoint.metadata),
            exposeToModel: readExposeMetadata(endpoint.metadata),
          });
          offers.set(descriptor.name, list);
        } catch (err) {
          logger.warn(
            { runner: info.name, instance: info.id, endpoint: endpoint.name, err: (err as Error).message },
            'ignoring an endpoint with invalid tool metadata',
          );
        }
      }
    }
    const now = Date.now();
    const next = new Map<string, CatalogEntry>();
    for (const [name, list] of offers) {
      const entry = resolveOffers(name, list, logger);
      if (entry) {
        next.set(name, entry);
        this.lastSeen.set(name, now);
      }
    }
    // Keep tools that missed this round but were seen recently: a slow answer is not a departure.
    for (const [name, entry] of this.entries) {
      if (!next.has(name) && !offers.has(name) && now - (this.lastSeen.get(name) ?? 0) < this.staleAfterMs)
        next.set(name, entry);
    }
    this.logChanges(next);
    for (const [name, entry] of this.entries) if (!next.has(name)) this.offline.set(name, { entry, since: now });
    for (const name of next.keys()) this.offline.delete(name);
    for (const [name, gone] of this.offline) if (now - gone.since >= this.rememberOfflineMs) this.offline.delete(name);
    this.entries = next;
  }

  private logChanges(next: Map<string, CatalogEntry>): void {
    const added = [...next.keys()].filter((k) => !this.entries.has(k));
    const removed = [...this.entries.keys()].filter((k) => !next.has(k));
    if (added.length || removed.length)
      this.options.logger.info({ added, removed, total: next.size }, 'tool catalog changed');
  }
}
