import { randomUUID } from 'node:crypto';
import type { orchestratorV1 } from '@platform/proto';

/**
 * A HandleMessage request of the tests: a user's message (subject `user-1`) to the default agent
 * with a fresh run id, every other field at its empty value unless `fields` sets it.
 */
export function handleMessageRequest(
  fields: Pick<orchestratorV1.HandleMessageRequest, 'tenantId' | 'conversationId' | 'content'> &
    Partial<orchestratorV1.HandleMessageRequest>,
): orchestratorV1.HandleMessageRequest {
  return {
    requestId: '',
    profile: '',
    runId: `run_${randomUUID()}`,
    stream: false,
    tier: '',
    timeZone: '',
    attach: false,
    approvalId: '',
    decision: '',
    changesJson: '',
    source: undefined,
    subject: 'user-1',
    ...fields,
  };
}
