import { randomUUID } from 'node:crypto';
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { orchestratorV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';

/** Who stores a config: the token's tenant, and its tier (whose quota counts the configs). */
export interface PushCaller {
  tenantId: string;
  tier: string;
}

/** Where a tenant's push notification configs of its tasks are kept (durably: the orchestrator's store). */
export interface A2aPushConfigs {
  create(caller: PushCaller, taskId: string, config: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig>;
  get(tenantId: string, taskId: string, configId: string): Promise<TaskPushNotificationConfig>;
  list(tenantId: string, taskId: string): Promise<TaskPushNotificationConfig[]>;
  delete(tenantId: string, taskId: string, configId: string): Promise<void>;
}

/** A stored config as A2A gives it back: the authentication's scheme, never its credentials. */
function a2aConfigOf(config: orchestratorV1.A2aPushConfig | undefined): TaskPushNotificationConfig {
  return {
    tenant: '',
    id: config?.configId ?? '',
    taskId: config?.taskId ?? '',
    url: config?.url ?? '',
    token: config?.token ?? '',
    authentication: config?.authScheme ? { scheme: config.authScheme, credentials: '' } : undefined,
  };
}

/** The configs in the orchestrator (migrations/0028), which checks their URLs and counts them. */
export class OrchestratorPushConfigs implements A2aPushConfigs {
  constructor(private readonly orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>) {}

  async create(
    caller: PushCaller,
    taskId: string,
    config: TaskPushNotificationConfig,
  ): Promise<TaskPushNotificationConfig> {
    const { config: stored } = await this.orchestrator.createA2APushConfig({
      tier: caller.tier,
      config: {
        tenantId: caller.tenantId,
        taskId,
        configId: config.id || randomUUID(),
        url: config.url,
        token: config.token,
        authScheme: config.authentication?.scheme ?? '',
        authCredentials: config.authentication?.credentials ?? '',
        createdAt: undefined,
      },
    });
    return a2aConfigOf(stored);
  }

  async get(tenantId: string, taskId: string, configId: string): Promise<TaskPushNotificationConfig> {
    const { config } = await this.orchestrator.getA2APushConfig({ tenantId, taskId, configId });
    return a2aConfigOf(config);
  }

  async list(tenantId: string, taskId: string): Promise<TaskPushNotificationConfig[]> {
    const { configs } = await this.orchestrator.listA2APushConfigs({ tenantId, taskId });
    return configs.map(a2aConfigOf);
  }

  async delete(tenantId: string, taskId: string, configId: string): Promise<void> {
    await this.orchestrator.deleteA2APushConfig({ tenantId, taskId, configId });
  }
}
