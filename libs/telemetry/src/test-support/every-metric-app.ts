// Records one value of every instrument the platform defines (the helpers services call), prints
// `ready`, then idles: a scrape of its /metrics lists every metric name the platform exports.
import {
  observeConsumerLag,
  observeGauge,
  PLATFORM,
  recordChatCall,
  recordFailure,
  recordFireLag,
  recordMemoryIngestion,
  recordQuotaRefusal,
  recordTenantTokens,
  recordToolCall,
  recordTurn,
} from '../index.js';

recordChatCall(
  { provider: 'openai', requestModel: 'sim-1', responseModel: 'sim-1', inputTokens: 12, outputTokens: 3 },
  0.02,
);
recordToolCall({ toolName: 'calculator', status: 'success' }, 0.004);
recordToolCall({ toolName: 'web_fetch', status: 'timeout', errorCode: 'DEADLINE_EXCEEDED' }, 10);
recordTurn({ profile: 'default', status: 'completed', stopReason: 'final_answer' }, 0.2);
recordTenantTokens('acme', 12, 3);
recordFireLag('schedule', 0.4);
recordMemoryIngestion('stored', 0.1);
observeConsumerLag('memory-ingest', () => 2);
observeGauge(PLATFORM.agentPoolEntriesMetric, { unit: '{entry}', description: 'entries' }, () => [
  { value: 1, attributes: { [PLATFORM.agentStatus]: 'waiting_for_approval', 'platform.agent.kind': 'agent' } },
]);
observeGauge(PLATFORM.agentPoolApprovalsExpiringMetric, { unit: '{approval}', description: 'expiring' }, () => [
  { value: 1 },
]);
observeGauge(PLATFORM.memoryRecallConcurrencyMetric, { unit: '{recall}', description: 'recalls' }, () => [
  { value: 8, attributes: { [PLATFORM.memoryRecallConcurrencyKind]: 'limit' } },
]);
recordFailure({ failureClass: 'system', kind: 'memory_recall_shed', severity: 'low', recovery: 'none' });
recordQuotaRefusal('credential_bytes', 'default');
observeGauge(PLATFORM.openStreamsMetric, { unit: '{stream}', description: 'streams' }, () => [{ value: 3 }]);
process.stdout.write('ready\n');
setInterval(() => undefined, 60_000);
