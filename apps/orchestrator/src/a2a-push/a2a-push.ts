import { quotasFor, TenantId, type TenantTiers } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import { errors, unaryHandler, type Logger } from '@platform/service-kit';
import type pg from 'pg';
import { ErrorCodes } from '../error-codes.js';
import type { RunWebhooks } from '../webhooks/run-webhooks.js';
import { A2aPushStore } from './a2a-push-store.js';

/** How often deliveries and configs older than the retention are dropped. */
const PRUNE_INTERVAL_MS = 3_600_000;

/** The longest config id, token and credentials accepted (each is stored and sent as a header). */
const MAX_FIELD_LENGTH = 1_024;

export interface A2aPushOptions {
  tiers: TenantTiers;
  defaultTier: string;
  retentionDays: number;
}

/**
 * A2A push notifications (docs/protocols.md#a2a): the tenant's configs per task, checked (the
 * egress guard, as every URL a tenant sets) and counted (its tier's quota), and their outbox,
 * delivered by the run webhooks' path (signed with the tenant's run webhook secret, retried).
 */
export class A2aPush {
  readonly store: A2aPushStore;
  private pruneTimer: NodeJS.Timeout | undefined;

  constructor(
    pool: pg.Pool,
    private readonly webhooks: Pick<RunWebhooks, 'checkUrl' | 'deliver' | 'store'>,
    private readonly options: A2aPushOptions,
    private readonly logger: Logger,
  ) {
    this.store = new A2aPushStore(pool);
    webhooks.deliver(this.store.outbox());
  }

  start(): void {
    const prune = (): void =>
      void this.store
        .prune(Date.now() - this.options.retentionDays * 86_400_000)
        .catch((err: unknown) => this.logger.warn({ err }, 'could not prune old A2A push notifications'));
    prune();
    this.pruneTimer = setInterval(prune, PRUNE_INTERVAL_MS);
  }

  stop(): void {
    clearInterval(this.pruneTimer);
  }

  handlers(): Pick<
    orchestratorV1.OrchestratorServiceServer,
    'createA2APushConfig' | 'getA2APushConfig' | 'listA2APushConfigs' | 'deleteA2APushConfig'
  > {
    const { logger, store } = this;
    return {
      createA2APushConfig: unaryHandler<
        orchestratorV1.CreateA2aPushConfigRequest,
        orchestratorV1.CreateA2aPushConfigResponse
      >(logger, 'CreateA2aPushConfig', async (request) => {
        const config = request.config;
        if (!config) throw errors.invalidArgument(ErrorCodes.INVALID_PUSH_CONFIG, 'config is required');
        const tenantId = tenantOf(config.tenantId);
        const url = await this.webhooks.checkUrl(config.url, 'url');
        for (const [field, value] of [
          ['id', config.configId],
          ['token', config.token],
          ['authentication', `${config.authScheme} ${config.authCredentials}`],
        ] as const)
          if (value.length > MAX_FIELD_LENGTH || /[\r\n\0]/.test(value))
            throw errors.invalidArgument(
              ErrorCodes.INVALID_PUSH_CONFIG,
              `${field}: at most ${MAX_FIELD_LENGTH} characters, no line breaks`,
              { details: { field } },
            );
        const { tier, quotas } = quotasFor(this.options.tiers, request.tier, this.options.defaultTier);
        // The tenant's signing secret exists before its first delivery is written.
        await this.webhooks.store.settings(tenantId);
        const stored = await store.put({ ...config, tenantId, url }, { tier, limit: quotas.a2aPushConfigs });
        return { config: stored };
      }),
      getA2APushConfig: unaryHandler<orchestratorV1.GetA2aPushConfigRequest, orchestratorV1.GetA2aPushConfigResponse>(
        logger,
        'GetA2aPushConfig',
        async (request) => ({
          config: await store.get(tenantOf(request.tenantId), request.taskId, request.configId),
        }),
      ),
      listA2APushConfigs: unaryHandler<
        orchestratorV1.ListA2aPushConfigsRequest,
        orchestratorV1.ListA2aPushConfigsResponse
      >(logger, 'ListA2aPushConfigs', async (request) => ({
        configs: await store.list(tenantOf(request.tenantId), request.taskId),
      })),
      deleteA2APushConfig: unaryHandler<
        orchestratorV1.DeleteA2aPushConfigRequest,
        orchestratorV1.DeleteA2aPushConfigResponse
      >(logger, 'DeleteA2aPushConfig', async (request) => {
        await store.delete(tenantOf(request.tenantId), request.taskId, request.configId);
        return {};
      }),
    };
  }
}

function tenantOf(tenantId: string): string {
  if (!TenantId.safeParse(tenantId).success)
    throw errors.invalidArgument(ErrorCodes.INVALID_TENANT_ID, 'tenant_id is invalid');
  return tenantId;
}
