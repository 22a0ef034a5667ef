import type { triggerV1 } from '@platform/proto';
import type { CallerTable } from '@platform/service-kit';

/** Who may call each trigger method, by service identity (docs/security.md): the api only. */
export const TRIGGER_CALLERS: CallerTable<typeof triggerV1.TriggerServiceService> = {
  createTask: ['api'],
  getTask: ['api'],
  listTasks: ['api'],
  updateTask: ['api'],
  deleteTask: ['api'],
  pauseTask: ['api'],
  resumeTask: ['api'],
  runTaskNow: ['api'],
  listFires: ['api'],
  publishEvent: ['api'],
  listNotifications: ['api'],
};
