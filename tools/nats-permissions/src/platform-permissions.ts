import {
  AGENTS_CHANGED_SUBJECT_PREFIX,
  API_KEY_REVOKED_SUBJECT,
  AGENT_POOL_EVENT_SUBJECT_PREFIX,
  AGENT_POOL_EVENTS_STREAM,
  MEMORY_DEAD_LETTER_STREAM,
  MEMORY_DEAD_LETTER_SUBJECT_PREFIX,
  MEMORY_INGEST_STREAM,
  MEMORY_INGEST_SUBJECT_PREFIX,
  MODEL_CONNECTION_CHANGED_SUBJECT_PREFIX,
  RUN_ENDED_SUBJECT_PREFIX,
  RUN_EVENTS_STREAM,
  RUN_EVENTS_SUBJECT_PREFIX,
  TOOL_SUBJECT_PREFIX,
  TRIGGER_EVENT_SUBJECT_PREFIX,
  TRIGGER_EVENTS_STREAM,
  TRIGGERED_RUN_SUBJECT_PREFIX,
  TRIGGERED_RUNS_STREAM,
  natsInboxPrefix,
} from '@platform/contracts';
import {
  consumeStream,
  JETSTREAM_ACCOUNT_INFO,
  manageStream,
  purgeStream,
  readStreamMessages,
} from './jetstream-subjects.js';
import type { Principal, RunnerDeclaration } from './model.js';
import { discoverySubscriptions, runnerPrincipal, toolSubscriptions } from './runner-subjects.js';

/**
 * THE source of truth of who may do what on the platform's NATS. The nats-server configuration
 * (deploy/nats/nats-server.conf) and the per-service credentials are generated from it
 * (`platform-nats-config`, docs/operations.md#nats-permissions); a test starts nats-server with
 * the generated configuration and checks both what is allowed and what is refused.
 *
 * When a service starts using a new subject or stream, add it here: otherwise the server refuses
 * it (a permissions violation in the service's log) wherever authentication is on.
 */

/**
 * Replies to the requests a principal makes (tool calls, discovery, JetStream API and publish
 * acks), under its own inbox prefix only (`_INBOX.<user>`: service-kit's connection sets it from
 * NATS_USER), so no principal reads the replies meant for another.
 */
function inboxOf(user: string): string {
  const prefix = natsInboxPrefix(user);
  if (!prefix) throw new Error(`the NATS user '${user}' is not one subject token (letters, digits, - and _)`);
  return `${prefix}.>`;
}
/** Calling any tool and discovering runners. */
const CALL_TOOLS = [`${TOOL_SUBJECT_PREFIX}.>`, '$SRV.>'];
/** The orchestrator replicas' cancel broadcast (apps/orchestrator/src/cancel-broadcast.ts). */
export const ORCHESTRATOR_CANCEL_SUBJECT = 'platform.orchestrator.cancel';
/** The memory service's tool runner (apps/memory/src/tools/memory-tools.ts). */
export const MEMORY_RUNNER: RunnerDeclaration = {
  name: 'memory-tools',
  tools: ['memory_search', 'memory_save', 'working_memory_set', 'working_memory_get'],
};

const unique = (subjects: string[]): string[] => [...new Set(subjects)];

/** The platform's services. credential does not use NATS and gets no user. */
export const SERVICE_PRINCIPALS: readonly Principal[] = [
  {
    name: 'api',
    kind: 'service',
    description:
      "HTTP edge: keeps the run-events stream and reads it for SSE clients (ordered consumers); reads memory's dead letters for operators; announces model connection changes; tells the other replicas of revoked API keys",
    publish: unique([
      API_KEY_REVOKED_SUBJECT,
      JETSTREAM_ACCOUNT_INFO,
      // Core NATS notices for the orchestrators' model connection caches (apps/api/src/model-connection-calls.ts).
      `${MODEL_CONNECTION_CHANGED_SUBJECT_PREFIX}.>`,
      ...manageStream(RUN_EVENTS_STREAM),
      ...readStreamMessages(RUN_EVENTS_STREAM),
      ...consumeStream(RUN_EVENTS_STREAM),
      ...readStreamMessages(MEMORY_DEAD_LETTER_STREAM),
      ...consumeStream(MEMORY_DEAD_LETTER_STREAM),
    ]),
    subscribe: [inboxOf('api'), API_KEY_REVOKED_SUBJECT],
    allowResponses: false,
  },
  {
    name: 'orchestrator',
    kind: 'service',
    description:
      "runs turns: publishes run events, finished turns, run-ended notices and the ends of triggered runs and writes to tenants' agents, calls tools, hears agent expiries, cancels and other replicas' run-ended notices, reads its child runs' stored events",
    publish: unique([
      `${RUN_EVENTS_SUBJECT_PREFIX}.>`,
      `${MEMORY_INGEST_SUBJECT_PREFIX}.>`,
      // Core NATS notice for memory (apps/orchestrator/src/events/publish-run-end.ts).
      `${RUN_ENDED_SUBJECT_PREFIX}.>`,
      // JetStream publish into the trigger service's stream (apps/orchestrator/src/events/publish-triggered-run.ts).
      `${TRIGGERED_RUN_SUBJECT_PREFIX}.>`,
      ORCHESTRATOR_CANCEL_SUBJECT,
      // Core NATS notices of writes to a tenant's agents (apps/orchestrator/src/tenant-agents/agent-directory.ts).
      `${AGENTS_CHANGED_SUBJECT_PREFIX}.>`,
      ...CALL_TOOLS,
      JETSTREAM_ACCOUNT_INFO,
      ...manageStream(RUN_EVENTS_STREAM),
      ...readStreamMessages(RUN_EVENTS_STREAM),
      // A plan's or team's parent run reads its child runs' stored events (ordered consumers,
      // events/child-event-forwarder.ts) to forward them, from any point after a restart.
      ...consumeStream(RUN_EVENTS_STREAM),
      ...consumeStream(AGENT_POOL_EVENTS_STREAM),
      // A deleted conversation's run events, purged by run subject (erasure/deletion-steps.ts).
      ...purgeStream(RUN_EVENTS_STREAM),
    ]),
    // Run-ended notices of the other replicas wake requests waiting here (ordering/run-end-watch.ts).
    // Model connection change notices drop cached connections (model-connections/connection-cache.ts).
    subscribe: [
      inboxOf('orchestrator'),
      ORCHESTRATOR_CANCEL_SUBJECT,
      `${RUN_ENDED_SUBJECT_PREFIX}.*`,
      `${MODEL_CONNECTION_CHANGED_SUBJECT_PREFIX}.>`,
      `${AGENTS_CHANGED_SUBJECT_PREFIX}.>`,
    ],
    allowResponses: false,
  },
  {
    name: 'agent-pool',
    kind: 'service',
    description: 'runs agent-tool steps on runners, discovers runners, publishes expiry events',
    publish: unique([
      `${AGENT_POOL_EVENT_SUBJECT_PREFIX}.>`,
      ...CALL_TOOLS,
      JETSTREAM_ACCOUNT_INFO,
      ...manageStream(AGENT_POOL_EVENTS_STREAM),
    ]),
    subscribe: [inboxOf('agent-pool')],
    allowResponses: false,
  },
  {
    name: 'memory',
    kind: 'service',
    description:
      'consumes finished turns (ingestion work queue), writes dead letters, hears run-ended notices (drops working memory), serves the memory tools',
    publish: unique([
      `${MEMORY_DEAD_LETTER_SUBJECT_PREFIX}.>`,
      JETSTREAM_ACCOUNT_INFO,
      ...manageStream(MEMORY_INGEST_STREAM),
      ...consumeStream(MEMORY_INGEST_STREAM),
      ...manageStream(MEMORY_DEAD_LETTER_STREAM),
      ...readStreamMessages(MEMORY_DEAD_LETTER_STREAM),
    ]),
    subscribe: [
      inboxOf('memory'),
      `${RUN_ENDED_SUBJECT_PREFIX}.*`,
      ...toolSubscriptions(MEMORY_RUNNER.tools),
      ...discoverySubscriptions(MEMORY_RUNNER.name),
    ],
    allowResponses: true,
  },
  {
    name: 'trigger',
    kind: 'service',
    // No tool subjects: a task's condition polls and custom executors reach tools only through the
    // orchestrator's tool gate (gRPC CallTool / CallToolBatch), never straight over NATS.
    description:
      "consumes external events, the ends of triggered runs and approval expiries; calls no tool itself (its tasks go through the orchestrator's tool gate)",
    publish: unique([
      JETSTREAM_ACCOUNT_INFO,
      ...manageStream(TRIGGER_EVENTS_STREAM),
      ...consumeStream(TRIGGER_EVENTS_STREAM),
      ...manageStream(TRIGGERED_RUNS_STREAM),
      ...consumeStream(TRIGGERED_RUNS_STREAM),
      ...consumeStream(AGENT_POOL_EVENTS_STREAM),
    ]),
    subscribe: [inboxOf('trigger')],
    allowResponses: false,
  },
];

/** The platform's own runners. Tool teams register theirs with `--runners <file>` (same shape). */
export const PLATFORM_RUNNERS: readonly RunnerDeclaration[] = [
  {
    name: 'builtin-tools',
    user: 'tool-runner',
    tools: ['calculator', 'current_time', 'web_fetch'],
    description: 'apps/tool-runner: the built-in tools',
  },
  {
    name: 'travel-runner',
    tools: ['flight_search', 'get_weather', 'send_email', 'weather_digest'],
    description: 'examples/travel-runner (optional component)',
  },
];

/** Outside clients: systems that publish external events for event triggers over JetStream. */
export const CLIENT_PRINCIPALS: readonly Principal[] = [
  {
    name: 'event-publisher',
    kind: 'client',
    description: 'publishes external events for event triggers (JetStream publish with acks)',
    publish: [`${TRIGGER_EVENT_SUBJECT_PREFIX}.>`],
    subscribe: [inboxOf('event-publisher')],
    allowResponses: false,
  },
];

/** Every principal: the services, the platform's runners plus the given ones, the clients. Names must be unique. */
export function platformPrincipals(extraRunners: readonly RunnerDeclaration[] = []): Principal[] {
  const all = [
    ...SERVICE_PRINCIPALS,
    ...[...PLATFORM_RUNNERS, ...extraRunners].map(runnerPrincipal),
    ...CLIENT_PRINCIPALS,
  ];
  const seen = new Set<string>();
  for (const principal of all) {
    if (seen.has(principal.name))
      throw new Error(`two principals are named '${principal.name}'; give the runner another 'user'`);
    seen.add(principal.name);
  }
  return all;
}
