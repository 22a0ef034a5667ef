// A send-email agent-tool for the agent tests: every kind of field, an approval function, and a
// `run` that records what it was asked to do.
import { createLogger } from '@platform/service-kit';
import { z } from 'zod';
import {
  defineAgentTool,
  type AgentToolContext,
  type AgentToolDefinition,
  type AgentToolSpec,
} from '../define-agent-tool.js';
import type { ToolContext } from '../define-tool.js';
import { callCredentials } from '../tool-credentials.js';

export interface Sent {
  fields: Record<string, unknown>;
  taskInstruction: string | undefined;
  callId: string;
}

const emailFields = {
  recipient: z.string(),
  subject: z.string().min(1),
  body: z.string().trim(),
  priority: z.enum(['low', 'normal', 'high']),
  cc: z.string().optional(),
};

/** The email agent; `sent` receives every run. Internal recipients need no approval. */
export function emailAgent(
  sent: Sent[],
  overrides: Partial<AgentToolSpec<typeof emailFields>> = {},
): AgentToolDefinition {
  return defineAgentTool({
    name: 'send_email',
    description: 'Sends an email on behalf of the user.',
    fields: {
      recipient: {
        schema: emailFields.recipient,
        description: 'Recipient email address',
        validate: (value) => (value.includes('@') ? undefined : 'must be an email address with @'),
        constraint: 'must contain @',
      },
      subject: { schema: emailFields.subject, description: 'Subject line' },
      body: { schema: emailFields.body, description: 'Message text', default: '' },
      priority: { schema: emailFields.priority, description: 'How urgent it is', default: 'normal' },
      cc: { schema: emailFields.cc, description: 'Someone to copy', required: false },
    },
    approval: (fields) =>
      fields.recipient.endsWith('@internal.test')
        ? undefined
        : {
            actionSummary: `Send email to ${fields.recipient}`,
            details: { recipient: fields.recipient, subject: fields.subject },
          },
    run: async (fields, context: AgentToolContext) => {
      sent.push({ fields: { ...fields }, taskInstruction: context.taskInstruction, callId: context.callId });
      return { sent: true, to: fields.recipient };
    },
    ...overrides,
  });
}

/** A handler context for calling steps directly. */
export function stepContext(callId = 'call-1'): ToolContext {
  return {
    tenantId: 'acme',
    conversationId: 'conv-1',
    callId,
    runId: undefined,
    deadlineAt: Date.now() + 5_000,
    signal: new AbortController().signal,
    logger: createLogger({ service: 'agent-test', level: 'silent' }),
    credentials: callCredentials(undefined, { tenantId: 'acme', callId, declared: [], grant: undefined }),
  };
}
