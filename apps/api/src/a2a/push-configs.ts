import type { TaskPushNotificationConfig } from '@a2a-js/sdk';

/** Where a tenant's push notification configs of its tasks are kept (durably: the orchestrator's store). */
export interface A2aPushConfigs {
  create(tenantId: string, taskId: string, config: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig>;
  get(tenantId: string, taskId: string, configId: string): Promise<TaskPushNotificationConfig>;
  list(tenantId: string, taskId: string): Promise<TaskPushNotificationConfig[]>;
  delete(tenantId: string, taskId: string, configId: string): Promise<void>;
}
