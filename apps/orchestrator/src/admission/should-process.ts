import { compositeKey, limitsFor, type TenantTiers } from '@platform/contracts';
import { PlatformError, type Logger, type RateLimiter, type Redis } from '@platform/service-kit';
import { DAY_MS, utcDay } from '../utc-day.js';
import { ErrorCodes } from '../error-codes.js';

const MINUTE_MS = 60_000;

/** What the should-process step sees of a new message. */
export interface IncomingMessage {
  tenantId: string;
  conversationId: string;
  content: string;
  tier: string;
  profile: string;
}

/**
 * A safety check (moderation, policy, abuse detection...): return a refusal to stop the message
 * before a run is created, or nothing to let it through. Checks run in order after the limits.
 */
type SafetyCheck = (message: IncomingMessage) => Promise<{ code: string; message: string } | undefined>;

export interface AdmissionOptions {
  limiter: RateLimiter;
  redis: Redis;
  logger: Logger;
  defaultTurnsPerMinute: number;
  tiers: TenantTiers;
  defaultTier: string;
  safetyChecks?: readonly SafetyCheck[];
}

function retryAfter(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * The should-process step: the tenant's turn rate and daily token budget (per tier, counted in
 * Redis and shared by every replica), then the safety checks. A refusal is a typed error the api
 * turns into 429 with `retry-after` (limits) or 400/403-style codes (safety checks).
 */
export class ShouldProcess {
  /** Whether any tier has a token budget: without one, nothing needs counting per turn. */
  private readonly budgets: boolean;

  constructor(private readonly options: AdmissionOptions) {
    this.budgets = Object.values(options.tiers).some((t) => t.tokensPerDay !== undefined);
  }

  async check(message: IncomingMessage): Promise<void> {
    const limits = limitsFor(this.options.tiers, message.tier, this.options.defaultTier);
    const turnsPerMinute = limits.turnsPerMinute ?? this.options.defaultTurnsPerMinute;
    if (turnsPerMinute > 0) {
      const decision = await this.options.limiter.consume(['turns', message.tenantId], turnsPerMinute, MINUTE_MS);
      if (!decision.allowed) {
        const seconds = retryAfter(decision.retryAfterMs);
        throw new PlatformError(
          'resource_exhausted',
          ErrorCodes.RATE_LIMITED,
          `this tenant may start ${turnsPerMinute} turns per minute; try again in ${seconds} s`,
          {
            retryAfterSeconds: seconds,
            details: {
              limit: turnsPerMinute,
              windowSeconds: MINUTE_MS / 1000,
              tier: message.tier || this.options.defaultTier,
            },
          },
        );
      }
    }
    if (limits.tokensPerDay !== undefined) await this.checkTokenBudget(message, limits.tokensPerDay);
    for (const check of this.options.safetyChecks ?? []) {
      const refusal = await check(message);
      if (refusal) throw new PlatformError('failed_precondition', refusal.code, refusal.message);
    }
  }

  private async checkTokenBudget(message: IncomingMessage, budget: number): Promise<void> {
    let used = 0;
    try {
      used = Number((await this.options.redis.get(this.tokenKey(message.tenantId))) ?? 0);
    } catch (err) {
      this.options.logger.warn(
        { err: (err as Error).message },
        'token budget unavailable; letting the request through',
      );
      return;
    }
    if (used < budget) return;
    const now = Date.now();
    const seconds = retryAfter(DAY_MS - (now % DAY_MS));
    throw new PlatformError(
      'resource_exhausted',
      ErrorCodes.TOKEN_BUDGET_EXCEEDED,
      `this tenant used its ${budget} model tokens for today (UTC); try again tomorrow`,
      {
        retryAfterSeconds: seconds,
        details: { budget, used, tier: message.tier || this.options.defaultTier },
      },
    );
  }

  /** Post-process counts a finished turn's tokens against the tenant's daily budget. */
  async recordTokens(tenantId: string, tokens: number): Promise<void> {
    if (tokens <= 0 || !this.budgets) return;
    const key = this.tokenKey(tenantId);
    try {
      await this.options.redis
        .multi()
        .incrby(key, tokens)
        .pexpire(key, 2 * DAY_MS)
        .exec();
    } catch (err) {
      this.options.logger.warn(
        { err: (err as Error).message, tenantId },
        'token usage not counted in Redis (Postgres keeps the record)',
      );
    }
  }

  private tokenKey(tenantId: string): string {
    return `platform:tokens:${compositeKey(tenantId, utcDay())}`;
  }
}
