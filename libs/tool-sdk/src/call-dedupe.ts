import { createHash, randomUUID } from 'node:crypto';
import { ToolCallResponse, type ToolCallMeta } from '@platform/contracts';
import type { Logger, Redis } from '@platform/service-kit';
import { outcome } from './call-outcome.js';

/** Effectively-once settings of a runner (docs/tool-protocol.md, "Effectively-once"). */
export interface IdempotencyOptions {
  /**
   * The result store. Every replica of the runner must use the same Redis (and database): the
   * queue group may send a retry to any replica, and dedupe only holds where the keys are seen.
   */
  redis: Redis;
  /** How long a finished result is kept for replay. Default 24 h; fractions of a second are allowed. */
  ttlSeconds?: number;
  /** Longest one Redis command may take before the call runs without the guarantee. Default 1000 ms. */
  commandTimeoutMs?: number;
  /** How often a duplicate that waits for an in-flight first run looks for its result. Default 50 ms. */
  pollIntervalMs?: number;
  /** Prefix of the Redis keys. Default `platform:tool-dedupe`. */
  keyPrefix?: string;
}

const IDEMPOTENCY_DEFAULTS = {
  ttlSeconds: 24 * 60 * 60,
  commandTimeoutMs: 1_000,
  pollIntervalMs: 50,
  keyPrefix: 'platform:tool-dedupe',
} as const;

/** The lock outlives the holder's deadline by this much, so a slow result write is not mistaken for a crash. */
const LOCK_MARGIN_MS = 2_000;

/** Deletes the lock only if it still holds our token: an expired lock may belong to another run by now. */
const RELEASE_SCRIPT =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/** One validated call, as the runner is about to run it. */
export interface DedupeCall {
  tool: string;
  meta: ToolCallMeta;
  arguments: Record<string, unknown>;
  /** The effective deadline (epoch ms): a waiting duplicate gives up at it. */
  deadlineAt: number;
}

export interface DedupeOutcome {
  response: ToolCallResponse;
  /** The response is the stored result of an earlier run; the handler did not run for this request. */
  replayed: boolean;
}

type Claim = { kind: 'run'; token: string } | { kind: 'replay'; response: ToolCallResponse } | { kind: 'expired' };

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs each `external` call at most once per key while Redis serves, and answers duplicates with
 * the first run's result. The key is (tool, tenant, conversation, call id, arguments): call ids
 * come from the model and are not unique across tenants or turns, so the id alone could replay
 * another tenant's result or a different call that reused an id.
 */
export class CallDedupe {
  private readonly ttlMs: number;
  private readonly commandTimeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly keyPrefix: string;

  constructor(
    private readonly options: IdempotencyOptions,
    private readonly logger: Logger,
  ) {
    this.ttlMs = Math.max(1, Math.round((options.ttlSeconds ?? IDEMPOTENCY_DEFAULTS.ttlSeconds) * 1000));
    this.commandTimeoutMs = options.commandTimeoutMs ?? IDEMPOTENCY_DEFAULTS.commandTimeoutMs;
    this.pollIntervalMs = options.pollIntervalMs ?? IDEMPOTENCY_DEFAULTS.pollIntervalMs;
    this.keyPrefix = options.keyPrefix ?? IDEMPOTENCY_DEFAULTS.keyPrefix;
  }

  /** Runs `run` unless a result for this call is stored or being produced. Never throws if `run` does not. */
  async once(call: DedupeCall, run: () => Promise<ToolCallResponse>): Promise<DedupeOutcome> {
    const started = Date.now();
    const keys = this.keys(call);
    const log = this.logger.child({ tool: call.tool, callId: call.meta.callId, tenantId: call.meta.tenantId });
    let claim: Claim;
    try {
      claim = await this.claim(keys, call.deadlineAt);
    } catch (err) {
      // Serving beats refusing: without the store the call runs, and the guarantee degrades to at-least-once.
      log.warn(
        { err: (err as Error).message },
        'dedupe store unavailable; running the call without the effectively-once guarantee',
      );
      return { response: await run(), replayed: false };
    }
    if (claim.kind === 'replay') {
      log.info('duplicate call: answering with the stored result instead of running the tool again');
      return { response: claim.response, replayed: true };
    }
    if (claim.kind === 'expired') {
      log.warn("duplicate call: the first run did not finish before this request's deadline");
      return {
        response: outcome.timeout(
          'a duplicate of this call is still running; its result was not ready before the deadline',
          Date.now() - started,
        ),
        replayed: false,
      };
    }
    const response = await run();
    await this.record(keys, claim.token, response, log);
    return { response, replayed: false };
  }

  private keys(call: DedupeCall): { result: string; lock: string } {
    const digest = createHash('sha256')
      .update(canonicalJson([call.meta.tenantId, call.meta.conversationId, call.meta.callId, call.arguments]))
      .digest('hex')
      .slice(0, 32);
    // The hash tag keeps both keys in one slot, so the scheme also works on Redis Cluster.
    const base = `${this.keyPrefix}:{${call.tool}:${digest}}`;
    return { result: `${base}:result`, lock: `${base}:lock` };
  }

  /** Decides who runs the call: a stored result wins, then whoever takes the lock; others poll. */
  private async claim(keys: { result: string; lock: string }, deadlineAt: number): Promise<Claim> {
    const redis = this.options.redis;
    for (;;) {
      const stored = await this.read(keys.result);
      if (stored) return { kind: 'replay', response: stored };
      const token = randomUUID();
      const lockMs = Math.max(1, deadlineAt - Date.now()) + LOCK_MARGIN_MS;
      if ((await this.command(redis.set(keys.lock, token, 'PX', lockMs, 'NX'))) === 'OK') {
        // The first run may have stored its result and unlocked between our read and our lock.
        const raced = await this.read(keys.result);
        if (!raced) return { kind: 'run', token };
        await this.command(redis.eval(RELEASE_SCRIPT, 1, keys.lock, token));
        return { kind: 'replay', response: raced };
      }
      // Someone runs this call right now (here or on another replica): wait for its result.
      if (Date.now() + this.pollIntervalMs >= deadlineAt) return { kind: 'expired' };
      await sleep(this.pollIntervalMs);
    }
  }

  private async read(key: string): Promise<ToolCallResponse | undefined> {
    const text = await this.command(this.options.redis.get(key));
    if (text === null) return undefined;
    try {
      const parsed = ToolCallResponse.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
    } catch {
      // reported below
    }
    this.logger.warn({ key }, 'ignoring a stored tool result that does not parse');
    return undefined;
  }

  private async record(
    keys: { result: string; lock: string },
    token: string,
    response: ToolCallResponse,
    log: Logger,
  ): Promise<void> {
    const redis = this.options.redis;
    try {
      await this.command(redis.set(keys.result, JSON.stringify(response), 'PX', this.ttlMs));
    } catch (err) {
      // Keep the lock (it expires on its own): waiting duplicates then time out rather than run again.
      log.error(
        { err: (err as Error).message },
        'could not store the result; a later duplicate of this call may run again',
      );
      return;
    }
    try {
      await this.command(redis.eval(RELEASE_SCRIPT, 1, keys.lock, token));
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'could not release the dedupe lock; it expires on its own');
    }
  }

  /** Bounds a Redis command, so a hung store delays a call by at most `commandTimeoutMs`. */
  private async command<T>(pending: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`redis did not answer within ${this.commandTimeoutMs} ms`)),
        this.commandTimeoutMs,
      );
    });
    // A command that fails after we stopped waiting has nobody left to tell.
    pending.catch(() => undefined);
    try {
      return await Promise.race([pending, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
