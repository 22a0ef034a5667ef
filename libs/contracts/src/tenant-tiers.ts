import { z } from 'zod';

// Tenant tiers (`TENANT_TIERS`): per tier, the rate limits and quotas a tenant of that tier gets.
// One JSON value, the same for every service; each service parses it once at boot and enforces
// the fields that concern it (the orchestrator turns and tokens, the api streams and events,
// memory facts, credential records and bytes, trigger tasks and schedule intervals). The tier of a
// request is the token's `tier` claim, carried in the gRPC requests that need it.

const count = () => z.number().int().min(0);

/** Limits of one tenant tier; a limit the tier does not set takes its default ({@link QUOTA_DEFAULTS}). */
export const TierLimits = z
  .object({
    /** Turns a tenant of this tier may start per minute (overrides RATE_LIMIT_TURNS_PER_MINUTE). */
    turnsPerMinute: count().optional(),
    /** Model tokens (input + output) a tenant of this tier may use per UTC day. */
    tokensPerDay: z.number().int().positive().optional(),
    /** Event streams (SSE: run events, notifications, streamed turns) open at once, across api replicas. */
    concurrentStreams: count().optional(),
    /** Current long-term facts (memory). */
    facts: count().optional(),
    /** Stored credential records. */
    credentialRecords: count().optional(),
    /** Bytes of credential secrets stored, summed over the records (the secrets' JSON, before encryption). */
    credentialBytes: count().optional(),
    /** External events accepted per minute (POST /v1/events). */
    eventsPerMinute: count().optional(),
    /** Trigger tasks (overrides TRIGGER_MAX_TASKS_PER_TENANT). */
    tasks: count().optional(),
    /** Shortest time between two fires of a schedule or two polls of a condition task, in seconds. */
    minScheduleIntervalSeconds: z.number().int().min(1).optional(),
    /** Agents a tenant of this tier may define (deleted ones not counted). */
    agents: count().optional(),
    /** Versions one agent may have (drafts included). */
    agentVersions: count().optional(),
    /** Model connections a tenant may register (0 turns bringing one's own model off). */
    modelConnections: count().optional(),
    /** Remote A2A agents a tenant may register (POST /v1/remote-agents; 0 turns them off). */
    remoteAgents: count().optional(),
    /** API keys a tenant may hold (live ones: not revoked, not expired; POST /v1/keys). */
    apiKeys: count().optional(),
    /** A2A push notification configs a tenant may hold over all its tasks (docs/protocols.md#a2a). */
    a2aPushConfigs: count().optional(),
    /**
     * Retention: a conversation idle (no run started or ended) for longer than this many seconds is
     * deleted everywhere by the orchestrator's retention sweep (docs/conversations.md, "Retention");
     * absent: kept until deleted.
     */
    conversationRetentionSeconds: z.number().int().min(1).optional(),
    /** Models a tenant agent of this tier may name (`*` matches any run of characters); absent: any. */
    agentModels: z.array(z.string().min(1).max(200)).optional(),
    /** Tool patterns a tenant agent of this tier may list: each of its patterns must match one of these; absent: any. */
    agentTools: z.array(z.string().min(1).max(128)).optional(),
  })
  .strict();
export type TierLimits = z.infer<typeof TierLimits>;

/** Tier names: 1-32 letters, digits, "_" or "-" (the token's `tier` claim has the same shape). */
const TierName = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'tier names are 1-32 letters, digits, "_" or "-"');

/** `TENANT_TIERS`: a JSON object of tier name -> limits, e.g. `{"free":{"turnsPerMinute":10,"facts":1000}}`. */
export const TenantTiers = z.record(TierName, TierLimits);
export type TenantTiers = z.infer<typeof TenantTiers>;

/** `TENANT_TIERS` as an environment variable: JSON text, default `{}`. */
export const TenantTiersEnv = z
  .string()
  .default('{}')
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of tier name -> limits' });
      return z.NEVER;
    }
  })
  .pipe(TenantTiers);

/** The quotas every tier has, and what a tier that does not set one gets. */
export const QUOTA_DEFAULTS = {
  concurrentStreams: 100,
  facts: 10_000,
  credentialRecords: 100,
  credentialBytes: 1024 * 1024,
  eventsPerMinute: 600,
  tasks: 10_000,
  minScheduleIntervalSeconds: 60,
  agents: 100,
  agentVersions: 1_000,
  modelConnections: 10,
  remoteAgents: 10,
  apiKeys: 50,
  a2aPushConfigs: 1_000,
} as const satisfies Required<
  Omit<TierLimits, 'turnsPerMinute' | 'tokensPerDay' | 'agentModels' | 'agentTools' | 'conversationRetentionSeconds'>
>;

export type QuotaField = keyof typeof QUOTA_DEFAULTS;

/** A quota's name in a QUOTA_EXCEEDED error and in metrics and alerts (stable). */
export const QUOTA_NAMES = {
  concurrentStreams: 'concurrent_streams',
  facts: 'facts',
  credentialRecords: 'credential_records',
  credentialBytes: 'credential_bytes',
  eventsPerMinute: 'events_per_minute',
  tasks: 'tasks',
  minScheduleIntervalSeconds: 'min_schedule_interval_seconds',
  agents: 'agents',
  agentVersions: 'agent_versions',
  modelConnections: 'model_connections',
  remoteAgents: 'remote_agents',
  apiKeys: 'api_keys',
  a2aPushConfigs: 'a2a_push_configs',
} as const satisfies Record<QuotaField, string>;

/** A request's tier resolved against the configuration: the tier whose limits apply, and them. */
export interface TierQuotas {
  /** The configured tier that applies (the request's own, else the default tier): a bounded set, fit for metrics. */
  tier: string;
  limits: TierLimits;
  /** Every quota, the tier's value or else its default. */
  quotas: Record<QuotaField, number>;
}

/** The limits for a request's tier: its own entry, else the default tier's, else none. */
export function limitsFor(tiers: TenantTiers, tier: string, defaultTier: string): TierLimits {
  return tiers[tier] ?? tiers[defaultTier] ?? {};
}

/**
 * The quotas of a request's tier (`tier` empty or unknown: the default tier's); `defaults`
 * replaces {@link QUOTA_DEFAULTS} where a service has its own setting (e.g. TRIGGER_MAX_TASKS_PER_TENANT).
 */
export function quotasFor(
  tiers: TenantTiers,
  tier: string,
  defaultTier: string,
  defaults: Partial<Record<QuotaField, number>> = {},
): TierQuotas {
  const own = tier !== '' && Object.hasOwn(tiers, tier);
  const limits = limitsFor(tiers, own ? tier : defaultTier, defaultTier);
  const quotas = { ...QUOTA_DEFAULTS, ...defaults };
  for (const field of Object.keys(QUOTA_DEFAULTS) as QuotaField[]) {
    const value = limits[field];
    if (value !== undefined) quotas[field] = value;
  }
  return { tier: own ? tier : defaultTier, limits, quotas };
}
