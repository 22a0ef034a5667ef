import type { agentPoolV1, agentsV1, conversationsV1, triggerV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { RunEvents } from '../events/run-event-reader.js';

/** For HTTP-edge tests that never stream: any use of run events fails the test loudly. */
export const noEvents: RunEvents = {
  lastId: () => Promise.reject(new Error('run events are not available in this test')),
  // eslint-disable-next-line require-yield
  read: async function* () {
    throw new Error('run events are not available in this test');
  },
};

/** For HTTP-edge tests that never touch approvals: any call to the agent pool fails the test loudly. */
export const noAgentPool = new Proxy(
  {},
  {
    get: (_target, method) => () =>
      Promise.reject(new Error(`the agent pool (${String(method)}) is not available in this test`)),
  },
) as PromiseClient<agentPoolV1.AgentPoolServiceClient>;

/** For HTTP-edge tests that never touch tasks: any call to the trigger service fails the test loudly. */
export const noTrigger = new Proxy(
  {},
  {
    get: (_target, method) => () =>
      Promise.reject(new Error(`the trigger service (${String(method)}) is not available in this test`)),
  },
) as PromiseClient<triggerV1.TriggerServiceClient>;

/** For HTTP-edge tests that never touch agents: any call to the agent service fails the test loudly. */
export const noAgents = new Proxy(
  {},
  {
    get: (_target, method) => () =>
      Promise.reject(new Error(`the agent service (${String(method)}) is not available in this test`)),
  },
) as PromiseClient<agentsV1.AgentServiceClient>;

/** For HTTP-edge tests that never touch conversations: any call to the conversation service fails the test loudly. */
export const noConversations = new Proxy(
  {},
  {
    get: (_target, method) => () =>
      Promise.reject(new Error(`the conversation service (${String(method)}) is not available in this test`)),
  },
) as PromiseClient<conversationsV1.ConversationServiceClient>;
