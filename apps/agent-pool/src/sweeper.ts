import { nanos } from '@nats-io/nats-core';
import {
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
} from '@nats-io/jetstream';
import { inTransaction, type Logger, type NatsConnection } from '@platform/service-kit';
import type pg from 'pg';
import { entryStore, type EntryRow } from './entry-store.js';
import {
  AGENT_POOL_EVENT_SUBJECT_PREFIX,
  AgentExpiredEvent,
  agentPoolEventSubject,
  type AgentExpiryReason,
} from '@platform/contracts';

export interface SweeperOptions {
  db: pg.Pool;
  nc: NatsConnection;
  logger: Logger;
  /** JetStream stream for the events (created or extended to the pool's subjects when missing). */
  streamName: string;
  streamMaxAgeHours: number;
  intervalMs: number;
  batchSize: number;
  /** Finished entries untouched this many days are deleted; 0 keeps them. */
  retentionDays: number;
}

export interface SweepResult {
  /** Entries this round expired (another replica's round never returns the same ones). */
  expired: EntryRow[];
  /** Expiry events published (including ones left over from earlier rounds or other replicas). */
  published: number;
  purged: number;
}

const REASON_BY_CODE: Record<string, AgentExpiryReason> = {
  INPUT_TIMEOUT: 'input_timeout',
  APPROVAL_TIMEOUT: 'approval_timeout',
  PAUSED_TIMEOUT: 'paused_timeout',
};

/** The event of an expired entry; its id is stable, so a republished event is a JetStream duplicate. */
function expiredEvent(row: EntryRow): AgentExpiredEvent {
  return AgentExpiredEvent.parse({
    type: 'agent.expired',
    eventId: `${row.entry_id}:expired`,
    entryId: row.entry_id,
    tenantId: row.tenant_id,
    conversationId: row.conversation_id,
    ...(row.run_id ? { runId: row.run_id } : {}),
    callId: row.call_id,
    agentName: row.agent_name,
    reason: REASON_BY_CODE[row.error_code ?? ''] ?? 'input_timeout',
    message: row.error_message ?? 'The agent expired before the user answered; nothing was done.',
    expiredAt: row.updated_at.toISOString(),
  });
}

/**
 * Expires entries past their expiry and publishes one event per expired entry. Runs in every
 * replica: expiry is one `UPDATE ... FOR UPDATE SKIP LOCKED` statement, so replicas split the
 * work and never expire an entry twice. Events go through an outbox (`event_pending`, set in the
 * same statement): a crash between expiry and publish leaves the event pending for the next
 * round, and a crash after publish but before the flag is cleared republishes with the same
 * message id, which JetStream drops as a duplicate.
 */
export class Sweeper {
  private readonly js: JetStreamClient;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private streamReady = false;
  private stopped = false;
  private kicked = false;

  constructor(private readonly options: SweeperOptions) {
    this.js = jetstream(options.nc);
  }

  /** Creates the stream, or adds the pool's subjects to an existing one. */
  async ensureStream(): Promise<void> {
    const { streamName } = this.options;
    const subject = `${AGENT_POOL_EVENT_SUBJECT_PREFIX}.>`;
    const jsm = await jetstreamManager(this.options.nc);
    try {
      const info = await jsm.streams.info(streamName);
      if (!info.config.subjects?.includes(subject))
        await jsm.streams.update(streamName, { subjects: [...(info.config.subjects ?? []), subject] });
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
      await jsm.streams.add({
        name: streamName,
        subjects: [subject],
        max_age: nanos(this.options.streamMaxAgeHours * 60 * 60 * 1000),
        duplicate_window: nanos(2 * 60 * 1000),
      });
    }
    this.streamReady = true;
  }

  /** Sweeps every interval until stopped (the first round right away). */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Publishes pending events soon (after a call expired an entry on its own). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) this.kicked = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running) {
        this.schedule(this.options.intervalMs);
        return;
      }
      this.running = this.sweepOnce()
        .then((r) => (r.expired.length >= this.options.batchSize ? 0 : this.options.intervalMs))
        .catch((err: unknown) => {
          this.options.logger.error({ err }, 'agent pool sweep failed; retrying next round');
          return this.options.intervalMs;
        })
        .then((next) => {
          this.running = undefined;
          const again = this.kicked;
          this.kicked = false;
          if (!this.stopped) this.schedule(again ? 0 : next);
        });
    }, delayMs);
    this.timer.unref();
  }

  /** One round: expire due entries, publish pending events, purge old finished entries. */
  async sweepOnce(): Promise<SweepResult> {
    const expired = await entryStore.expireDue(this.options.db, this.options.batchSize);
    for (const row of expired) {
      this.options.logger.info(
        { entryId: row.entry_id, tenantId: row.tenant_id, agent: row.agent_name, reason: row.error_code },
        'agent expired',
      );
    }
    const published = await this.publishPending();
    const purged =
      this.options.retentionDays > 0
        ? await entryStore.purgeFinished(this.options.db, this.options.retentionDays, this.options.batchSize)
        : 0;
    if (purged > 0) this.options.logger.info({ purged }, 'purged finished agent entries past retention');
    return { expired, published, purged };
  }

  /** Publishes the outbox, batch by batch, each batch under row locks other replicas skip. */
  async publishPending(): Promise<number> {
    let total = 0;
    for (;;) {
      const { published, locked } = await inTransaction(this.options.db, async (client) => {
        const rows = await entryStore.lockPendingEvents(client, this.options.batchSize);
        if (rows.length === 0) return { published: 0, locked: 0 };
        const done: string[] = [];
        try {
          if (!this.streamReady) await this.ensureStream();
          for (const row of rows) {
            const event = expiredEvent(row);
            await this.js.publish(agentPoolEventSubject(row.tenant_id, 'expired'), JSON.stringify(event), {
              msgID: event.eventId,
              timeout: 5_000,
            });
            done.push(row.entry_id);
          }
        } catch (err) {
          this.options.logger.warn(
            { err, pending: rows.length - done.length },
            'could not publish agent pool events; they stay pending',
          );
        }
        await entryStore.markEventsPublished(client, done);
        return { published: done.length, locked: rows.length };
      });
      total += published;
      if (published < locked || locked < this.options.batchSize) return total;
    }
  }
}
