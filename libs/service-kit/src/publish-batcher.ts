import type { MsgHdrs } from '@nats-io/nats-core';
import type { NatsConnection } from './nats.js';

interface Queued {
  subject: string;
  payload: string | Uint8Array;
  headers: MsgHdrs | undefined;
  onError: ((err: Error) => void) | undefined;
}

const batchers = new WeakMap<NatsConnection, PublishBatcher>();

/**
 * Coalesces the NATS publishes made during one turn of the event loop into one socket write.
 * The NATS client writes whatever was published in one synchronous stretch together, but work
 * that awaits in between (a run emitting events as its steps complete, many runs at once) would
 * cost a write (and a read on the server) per publish. Publishes queue here and go out together
 * when the loop turn ends (`setImmediate`), in the order they were made; `send` hands what is
 * queued to the connection at once, and `flush` does too and then waits until the server has it.
 */
export class PublishBatcher {
  private queued: Queued[] = [];
  private scheduled = false;
  private pendingFlush: Promise<void> | undefined;

  private constructor(readonly connection: NatsConnection) {}

  /** The connection's batcher (one per connection, so every caller's publishes coalesce). */
  static of(nc: NatsConnection): PublishBatcher {
    let batcher = batchers.get(nc);
    if (!batcher) {
      batcher = new PublishBatcher(nc);
      batchers.set(nc, batcher);
    }
    return batcher;
  }

  /** Queues a publish; `onError` hears of it if the client refuses it (closed connection, too large). */
  publish(
    subject: string,
    payload: string | Uint8Array,
    options: { headers?: MsgHdrs; onError?: (err: Error) => void } = {},
  ): void {
    this.queued.push({ subject, payload, headers: options.headers, onError: options.onError });
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.sendQueued());
  }

  /**
   * Sends everything queued and waits until the server has received it. Flushes asked for in one
   * turn of the loop share one round trip (a ping sent after all their publishes were written):
   * many runs ending together cost one ping, not one each.
   */
  flush(): Promise<void> {
    this.sendQueued();
    if (!this.pendingFlush) {
      this.pendingFlush = new Promise<void>((resolve, reject) => {
        setImmediate(() => {
          this.pendingFlush = undefined;
          try {
            this.sendQueued();
            this.connection.flush().then(resolve, reject);
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
      });
    }
    return this.pendingFlush;
  }

  /**
   * Hands everything queued to the connection now, without waiting for the loop turn to end or for
   * the server's receipt (no round trip): what a caller about to answer uses, so its publishes go
   * out ahead of the answer for the price of the write alone.
   */
  send(): void {
    this.sendQueued();
  }

  private sendQueued(): void {
    this.scheduled = false;
    const batch = this.queued;
    this.queued = [];
    for (const message of batch) {
      try {
        this.connection.publish(
          message.subject,
          message.payload,
          message.headers ? { headers: message.headers } : undefined,
        );
      } catch (err) {
        message.onError?.(err as Error);
      }
    }
  }
}
