// A fake agent-tool runner for tests: a NATS micro service (via @nats-io/services, no tool-sdk
// agent support) whose endpoints are `kind: agent` and speak the agent step protocol with plain
// functions. It records every call and dedupes repeated call ids like an effectively-once runner.
import { randomBytes } from 'node:crypto';
import { headers as natsHeaders } from '@nats-io/nats-core';
import svcm from '@nats-io/services';
import type { Service } from '@nats-io/services';
import {
  AgentCallRequest,
  TOOL_QUEUE_GROUP,
  ToolCallHeader,
  ToolReplyHeader,
  toolEndpointMetadata,
  toolSubject,
  USER_CANCELLED_MESSAGE,
  type AgentStepOutput,
  type MissingField,
} from '@platform/contracts';
import type { NatsConnection } from '@platform/service-kit';

export interface FakeCall {
  agent: string;
  callId: string;
  tenantId: string;
  request: AgentCallRequest;
  replayed: boolean;
}

/** One agent of the fake runner: `step` turns a request into the agent's next state. */
export interface FakeAgentSpec {
  name: string;
  schemaVersion: string;
  step(request: AgentCallRequest, schemaVersion: string): AgentStepOutput | Promise<AgentStepOutput>;
  /** Answer a failure instead of a state (for steps that should end in status error). */
  fail?: (request: AgentCallRequest) => { status: 'failed' | 'invalid'; code: string; message: string } | undefined;
}

export interface FakeAgentRunner {
  readonly calls: FakeCall[];
  /** Steps actually run (replays excluded). */
  readonly executions: number;
  /** Delays the next steps by `ms` (before they run), e.g. to provoke a timeout or a concurrent step. */
  delay(ms: number): void;
  stop(): Promise<void>;
}

export async function startFakeAgentRunner(nc: NatsConnection, agents: FakeAgentSpec[]): Promise<FakeAgentRunner> {
  const service: Service = await new svcm.Svcm(nc).add({
    name: `fake-agents-${randomBytes(4).toString('hex')}`,
    version: '1.0.0',
    queue: TOOL_QUEUE_GROUP,
  });
  const calls: FakeCall[] = [];
  const answered = new Map<string, string>();
  let executions = 0;
  let delayMs = 0;
  for (const agent of agents) {
    service.addEndpoint(agent.name, {
      subject: toolSubject(agent.name),
      queue: TOOL_QUEUE_GROUP,
      metadata: toolEndpointMetadata({
        kind: 'agent',
        description: `fake agent ${agent.name}`,
        inputSchema: { type: 'object', properties: {} },
        timeoutMs: 60_000,
        requiresApproval: true,
        sideEffect: 'external',
        version: '1.0.0',
        schemaHash: 'sha256:fake',
        agentSchemaVersion: agent.schemaVersion,
      }),
      handler: (_err, msg) => {
        void (async () => {
          const callId = msg.headers?.get(ToolCallHeader.callId) ?? '';
          const tenantId = msg.headers?.get(ToolCallHeader.tenant) ?? '';
          const request = AgentCallRequest.parse(msg.json());
          const key = `${tenantId}|${callId}`;
          const previous = answered.get(key);
          calls.push({ agent: agent.name, callId, tenantId, request, replayed: previous !== undefined });
          if (previous !== undefined) {
            const h = natsHeaders();
            h.set(ToolReplyHeader.replayed, 'true');
            msg.respond(previous, { headers: h });
            return;
          }
          if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
          executions++;
          const failure = agent.fail?.(request);
          const body = failure
            ? JSON.stringify({ status: failure.status, error: { code: failure.code, message: failure.message } })
            : JSON.stringify({
                status: 'success',
                output: await agent.step(request, agent.schemaVersion),
                durationMs: 1,
              });
          answered.set(key, body);
          msg.respond(body);
        })();
      },
    });
  }
  await nc.flush();
  return {
    calls,
    get executions() {
      return executions;
    },
    delay(ms: number) {
      delayMs = ms;
    },
    stop: () => service.stop().then(() => undefined),
  };
}

/**
 * A send-email agent: needs `to` (with an "@") and `subject`, asks for approval, then "sends"
 * (completed). Edit applies `changes` and sends; cancel ends it; a reply "yes"/"no" is read too.
 */
export function emailAgent(
  name: string,
  schemaVersion = '1',
  approval: { options: Array<'approve' | 'edit' | 'cancel'>; allowModification: boolean } = {
    options: ['approve', 'edit', 'cancel'],
    allowModification: true,
  },
): FakeAgentSpec & { sent: Array<Record<string, unknown>> } {
  const sent: Array<Record<string, unknown>> = [];
  return {
    name,
    schemaVersion,
    sent,
    step(request, version) {
      const step = request.agent ?? { phase: 'start' as const };
      let collected: Record<string, unknown>;
      if (step.phase === 'start') {
        collected = Object.fromEntries(
          Object.entries(request.arguments).filter(([k]) => ['to', 'subject', 'body'].includes(k)),
        );
      } else if (step.phase === 'input') {
        collected = { ...step.collected, ...step.fields };
      } else {
        collected = { ...step.collected };
        const decision =
          step.decision ??
          (/^(yes|ok|approve)/i.test(step.reply ?? '')
            ? 'approve'
            : /^(no|cancel)/i.test(step.reply ?? '')
              ? 'cancel'
              : undefined);
        if (decision === 'cancel')
          return { state: 'cancelled', schemaVersion: version, collected, message: USER_CANCELLED_MESSAGE };
        if (decision === 'approve' || decision === 'edit') {
          if (decision === 'edit') collected = { ...collected, ...step.changes };
          sent.push(collected);
          return { state: 'completed', schemaVersion: version, collected, result: { sent: true, ...collected } };
        }
      }
      const missing: MissingField[] = [];
      if (typeof collected['to'] !== 'string') missing.push({ name: 'to', description: 'Recipient email address' });
      else if (!collected['to'].includes('@'))
        missing.push({ name: 'to', description: 'Recipient email address', reason: 'must contain @' });
      if (typeof collected['subject'] !== 'string') missing.push({ name: 'subject', description: 'Subject line' });
      if (missing.length > 0) {
        return {
          state: 'waiting_for_input',
          schemaVersion: version,
          collected,
          prompt: `Please give: ${missing.map((m) => m.name).join(', ')}`,
          missing,
        };
      }
      return {
        state: 'waiting_for_approval',
        schemaVersion: version,
        collected,
        prompt: `Send the email to ${String(collected['to'])}?`,
        approval: {
          agentName: name,
          actionSummary: `Send email to ${String(collected['to'])}`,
          details: { to: collected['to'], subject: collected['subject'] },
          options: approval.options,
          timeoutMinutes: 30,
          allowModification: approval.allowModification,
        },
      };
    },
  };
}

/** An agent that finishes in its first step. */
export function lookupAgent(name: string): FakeAgentSpec {
  return {
    name,
    schemaVersion: '1',
    step: (request, version) => ({
      state: 'completed',
      schemaVersion: version,
      collected: request.arguments,
      result: { answer: 42 },
    }),
  };
}
