import { EgressGuard, type EgressAllowlist, type HostResolver } from '@platform/egress';
import type { orchestratorV1 } from '@platform/proto';
import { errors, unaryHandler, type Logger } from '@platform/service-kit';
import { WebhookDispatcher, type WebhookOutboxStore } from '@platform/webhooks';
import { TenantId } from '@platform/contracts';
import { hostname } from 'node:os';
import type pg from 'pg';
import { ErrorCodes } from '../error-codes.js';
import { RunWebhookStore } from './run-webhook-store.js';
import { checkWebhookUrl } from './webhook-url-check.js';

/** How often deliveries older than the retention are dropped. */
const PRUNE_INTERVAL_MS = 3_600_000;

/** How run webhooks are delivered (compiled from RUN_WEBHOOK_* and EGRESS_ALLOW_* at boot). */
export interface RunWebhookSettings {
  /** Hosts and ranges the egress guard admits besides public addresses. */
  allowlist: EgressAllowlist;
  /** Whether a URL may be plain http (tests and closed networks only). */
  allowHttp: boolean;
  /** One delivery attempt's deadline, connect included. */
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** How often the outbox is polled for deliveries due. */
  intervalMs: number;
  /** How long deliveries are kept. */
  retentionDays: number;
}

/**
 * Webhooks when a run ends (docs/conversations.md): where a new run's end goes (the message's URL,
 * else the conversation's, else the tenant's default), the settings and deliveries calls, and the dispatcher that delivers
 * the outbox the run's end writes (libs/webhooks, one path with the trigger's notifications).
 */
export class RunWebhooks {
  readonly store: RunWebhookStore;
  readonly dispatcher: WebhookDispatcher;
  private readonly egress: EgressGuard;
  /** Dispatchers of other outboxes that share this delivery path (A2A push notifications). */
  private readonly others: WebhookDispatcher[] = [];
  private pruneTimer: NodeJS.Timeout | undefined;

  constructor(
    pool: pg.Pool,
    private readonly settings: RunWebhookSettings,
    private readonly logger: Logger,
    resolve?: HostResolver,
  ) {
    this.store = new RunWebhookStore(pool);
    this.egress = new EgressGuard({
      allowlist: settings.allowlist,
      connectTimeoutMs: settings.timeoutMs,
      ...(resolve ? { resolve } : {}),
    });
    this.dispatcher = this.dispatcherOf(this.store.outbox());
  }

  private dispatcherOf(outbox: WebhookOutboxStore): WebhookDispatcher {
    const { settings } = this;
    return new WebhookDispatcher(
      outbox,
      () => Date.now(),
      this.egress,
      {
        replicaId: `${hostname()}:${process.pid}`,
        timeoutMs: settings.timeoutMs,
        maxAttempts: settings.maxAttempts,
        retryBaseMs: settings.retryBaseMs,
        retryMaxMs: settings.retryMaxMs,
        batchSize: 64,
        leaseMs: settings.timeoutMs * 2,
      },
      this.logger,
    );
  }

  /**
   * Delivers another outbox the same way (the egress guard, the signature, the retries and their
   * settings), started and stopped with the run webhooks: one delivery path (libs/webhooks).
   */
  deliver(outbox: WebhookOutboxStore): WebhookDispatcher {
    const dispatcher = this.dispatcherOf(outbox);
    this.others.push(dispatcher);
    return dispatcher;
  }

  start(): void {
    this.dispatcher.start(this.settings.intervalMs);
    for (const other of this.others) other.start(this.settings.intervalMs);
    const prune = (): void =>
      void this.store
        .prune(Date.now() - this.settings.retentionDays * 86_400_000)
        .catch((err: unknown) => this.logger.warn({ err }, 'could not prune old run webhook deliveries'));
    prune();
    this.pruneTimer = setInterval(prune, PRUNE_INTERVAL_MS);
  }

  async stop(): Promise<void> {
    this.dispatcher.stop();
    for (const other of this.others) other.stop();
    clearInterval(this.pruneTimer);
    await this.egress.close();
  }

  /** A URL a tenant sets (on a message, a conversation or its settings), checked: INVALID_WEBHOOK_URL / EGRESS_REFUSED. */
  checkUrl(url: string, field: string): Promise<string> {
    return checkWebhookUrl(url, field, this.settings.allowHttp, this.egress);
  }

  /**
   * Where a new message's run sends its end, recorded before the run: the message's URL (checked
   * already, by checkUrl), else its conversation's, else the tenant's default (run-webhook-store.ts).
   */
  recordTarget(tenantId: string, conversationId: string, runId: string, messageUrl: string | undefined): Promise<void> {
    return this.store.recordTarget(tenantId, conversationId, runId, messageUrl);
  }

  /** The gRPC calls of run webhooks (the end of the OrchestratorService). */
  handlers(): Pick<
    orchestratorV1.OrchestratorServiceServer,
    'listRunWebhookDeliveries' | 'getWebhookSettings' | 'updateWebhookSettings'
  > {
    const { logger, store } = this;
    return {
      listRunWebhookDeliveries: unaryHandler<
        orchestratorV1.ListRunWebhookDeliveriesRequest,
        orchestratorV1.ListRunWebhookDeliveriesResponse
      >(logger, 'ListRunWebhookDeliveries', async (request) => ({
        deliveries: await store.deliveries(tenantOf(request.tenantId), request.runId),
      })),
      getWebhookSettings: unaryHandler<
        orchestratorV1.GetWebhookSettingsRequest,
        orchestratorV1.GetWebhookSettingsResponse
      >(logger, 'GetWebhookSettings', async (request) => ({
        settings: await store.settings(tenantOf(request.tenantId)),
      })),
      updateWebhookSettings: unaryHandler<
        orchestratorV1.UpdateWebhookSettingsRequest,
        orchestratorV1.UpdateWebhookSettingsResponse
      >(logger, 'UpdateWebhookSettings', async (request) => {
        const tenantId = tenantOf(request.tenantId);
        const url =
          request.url === undefined || request.url === '' ? request.url : await this.checkUrl(request.url, 'url');
        return {
          settings: await store.update(tenantId, {
            ...(url !== undefined ? { url } : {}),
            rotateSecret: request.rotateSecret,
          }),
        };
      }),
    };
  }
}

function tenantOf(tenantId: string): string {
  if (!TenantId.safeParse(tenantId).success)
    throw errors.invalidArgument(ErrorCodes.INVALID_TENANT_ID, 'tenant_id is invalid');
  return tenantId;
}
