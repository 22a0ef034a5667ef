import type { memoryV1 } from '@platform/proto';
import type { CallerTable } from '@platform/service-kit';

/**
 * Who may call each memory method, by service identity (docs/security.md): the orchestrator
 * writes and reads a turn's history and recall; the api serves the tenant's own history and facts.
 */
export const MEMORY_CALLERS: CallerTable<typeof memoryV1.MemoryServiceService> = {
  appendMessages: ['orchestrator'],
  listMessages: ['orchestrator', 'api'],
  recall: ['orchestrator'],
  queryMemory: ['api'],
  listFacts: ['api'],
  getFact: ['api'],
  saveFact: ['orchestrator'],
  deleteFact: ['api'],
  forgetSubject: ['api'],
  setWorkingMemory: ['orchestrator'],
  getWorkingMemory: ['orchestrator'],
  clearWorkingMemory: ['orchestrator'],
  describeMemory: ['orchestrator', 'api'],
  deleteConversation: ['orchestrator'],
  deleteCollections: ['orchestrator'],
  forkConversation: ['api', 'orchestrator'],
};
