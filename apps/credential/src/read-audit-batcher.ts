import type pg from 'pg';
import type { Logger } from '@platform/service-kit';
import type { AuditEntry } from './audit-log.js';

export interface ReadAuditBatcherOptions {
  /** How long a row may wait for its batch: the window of rows a crash of this process can lose. */
  flushDelayMs: number;
  /** Whether `record` resolves only once the row is committed (CREDENTIAL_DURABLE_READ_AUDIT). */
  durable: boolean;
  /** Rows queued at most; beyond them `record` waits for the commit (back-pressure, nothing dropped). */
  maxQueuedRows: number;
  logger: Logger;
}

interface QueuedRow {
  tenantId: string;
  entry: AuditEntry;
  at: Date;
  /** Its caller waits for the commit; a failed write is that caller's error, not retried. */
  awaited: boolean;
}

/** Rows written by one statement, and whoever waits for them. */
class Batch {
  readonly rows: QueuedRow[] = [];
  readonly committed: Promise<void>;
  settle!: (error?: Error) => void;

  constructor() {
    this.committed = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    // Nobody need wait for a batch; a waiter still sees its rejection.
    this.committed.catch(() => undefined);
  }
}

const DONE = Promise.resolve();
const RETRY_MAX_MS = 5_000;

/**
 * Read audit rows (Get) written in batches, off the read's latency path: rows queue in memory and
 * one multi-row statement (`credential_append_audit`, migration 0002) commits them, durably, at
 * most `flushDelayMs` after the first of them. One write is in flight at a time; rows arriving
 * meanwhile form the next batch. A failed write is retried with backoff (rows whose caller did not
 * wait stay queued, so a database outage loses none while the process lives); `close` writes what
 * is left. In durable mode every caller waits for its batch's commit (concurrent reads share one).
 */
export class ReadAuditBatcher {
  private open = new Batch();
  private writing: Batch | undefined;
  private inflight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private urgent = false;
  private failures = 0;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: ReadAuditBatcherOptions,
  ) {}

  /** Queues one read's audit row; resolves at once, or in durable mode (or when the queue is full) once it is committed. */
  record(tenantId: string, entry: AuditEntry): Promise<void> {
    const queued = this.open.rows.length + (this.writing?.rows.length ?? 0);
    const awaited = this.options.durable || this.closed || queued >= this.options.maxQueuedRows;
    const batch = this.open;
    batch.rows.push({ tenantId, entry, at: new Date(), awaited });
    this.urgent ||= awaited;
    this.schedule(awaited ? 0 : this.options.flushDelayMs);
    return awaited ? batch.committed : DONE;
  }

  /** Resolves once every row queued so far is committed (e.g. before the audit trail is read). */
  flush(): Promise<void> {
    if (this.open.rows.length === 0) return this.writing?.committed ?? DONE;
    this.urgent = true;
    this.schedule(0);
    return this.open.committed;
  }

  /** Writes what is queued (shutdown); rows that still cannot be written are logged as lost. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.inflight;
    const batch = this.open;
    if (batch.rows.length === 0) return;
    this.open = new Batch();
    try {
      await this.write(batch);
    } catch (err) {
      this.options.logger.error(
        { err: (err as Error).message, rows: batch.rows.length },
        'read audit rows could not be written before shutdown and are lost',
      );
    }
  }

  /** Starts the next write after `delayMs`, unless one is in flight (it schedules the next when it ends) or due sooner. */
  private schedule(delayMs: number): void {
    if (this.inflight || (this.timer && delayMs > 0)) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.startWrite(), delayMs);
  }

  private startWrite(): void {
    this.timer = undefined;
    const batch = this.open;
    if (batch.rows.length === 0 || this.inflight) return;
    this.open = new Batch();
    this.urgent = false;
    this.writing = batch;
    this.inflight = this.writeAndContinue(batch);
  }

  private async writeAndContinue(batch: Batch): Promise<void> {
    try {
      await this.write(batch);
      this.failures = 0;
    } catch (err) {
      this.failures++;
      const kept = batch.rows.filter((row) => !row.awaited);
      this.open.rows.unshift(...kept);
      this.options.logger.warn(
        { err: (err as Error).message, rows: batch.rows.length, retried: kept.length, failures: this.failures },
        'writing read audit rows failed; retrying',
      );
    }
    this.writing = undefined;
    this.inflight = undefined;
    if (this.open.rows.length === 0 || (this.closed && this.failures > 0)) return;
    this.schedule(
      this.failures > 0 ? Math.min(RETRY_MAX_MS, 50 * 2 ** this.failures) : this.urgent ? 0 : this.options.flushDelayMs,
    );
  }

  /** One statement, committed on its own (an implicit transaction); settles the batch's waiters. */
  private async write(batch: Batch): Promise<void> {
    const rows = batch.rows;
    const column = <T>(pick: (row: QueuedRow) => T): T[] => rows.map(pick);
    try {
      await this.pool.query({
        name: 'credential-audit-append-batch',
        text: 'SELECT credential_append_audit($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::timestamptz[])',
        values: [
          column((r) => r.tenantId),
          column((r) => r.entry.service),
          column((r) => r.entry.account),
          column((r) => r.entry.action),
          column((r) => r.entry.outcome),
          column((r) => r.entry.actorKind),
          column((r) => r.entry.subject),
          column((r) => r.entry.tool),
          column((r) => r.entry.runId),
          column((r) => r.entry.callId),
          column((r) => r.at),
        ],
      });
      batch.settle();
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      batch.settle(error);
      throw error;
    }
  }
}
