import { defineAgentTool, type AgentToolDefinition } from '@platform/tool-sdk';
import { z } from 'zod';
import type { Outbox } from '../outbox.js';

/** Characters of the body the user sees in the approval request. */
const BODY_PREVIEW_CHARS = 200;
/** The credential service whose account the email is sent from (the user connects it through their app's OAuth flow). */
const MAIL_SERVICE = 'google';

/** What the user is told when the recipient is not an address. */
export const RECIPIENT_REASON = 'must be an email address such as team@example.com';

/**
 * `send_email`: an agent-tool that always asks the user to approve (or edit, or cancel) before it
 * acts. It sends from the user's connected `google` account, read through `ctx.credentials`, and
 * says so plainly when none is connected. Its side effect is `external`, so with Redis the runner dedupes every step by call id and
 * a repeated approval never sends twice; the outbox's file-per-call guards the same downstream.
 */
export function sendEmailAgent(outbox: Outbox): AgentToolDefinition {
  return defineAgentTool({
    name: 'send_email',
    description:
      'Sends an email on behalf of the user. Example runner: the email is written to a local outbox directory, not to a mail server.',
    fields: {
      recipient: {
        schema: z.string().trim().min(1).max(254),
        description: 'Who receives the email',
        validate: (value) => (value.includes('@') ? undefined : RECIPIENT_REASON),
        constraint: 'email address',
      },
      subject: { schema: z.string().trim().min(1).max(200), description: 'Subject line' },
      body: { schema: z.string().min(1).max(20_000), description: 'Message text' },
    },
    approval: ({ recipient, subject, body }) => ({
      actionSummary: `Send email to ${recipient}`,
      details: { recipient, subject, bodyPreview: body.slice(0, BODY_PREVIEW_CHARS) },
      allowModification: true,
    }),
    sideEffect: 'external',
    version: '1.1.0',
    credentials: [MAIL_SERVICE],
    run: async ({ recipient, subject, body }, context) => {
      const { tenantId, conversationId, callId, taskInstruction } = context;
      // The user's mail account, through this call's grant: no account connected, no email.
      const mailbox = await context.credentials.get(MAIL_SERVICE);
      if (!mailbox.connected)
        return `The email to ${recipient} was not sent: no ${MAIL_SERVICE} account is connected. ${mailbox.message}`;
      // A real runner would hand mailbox.secret.access_token to its mail API here; the example's
      // outbox records only which account sent it, never the token.
      const from = `${mailbox.service}/${mailbox.account}`;
      const delivery = await outbox.deliver(
        { to: recipient, subject, body, taskInstruction, from },
        { tenantId, conversationId, callId },
      );
      if (delivery.duplicate)
        context.logger.warn(
          { messageId: delivery.messageId },
          'this call already wrote its email; not writing another',
        );
      else context.logger.info({ messageId: delivery.messageId, file: delivery.file }, 'email written to the outbox');
      return `Email sent to ${recipient} (message id ${delivery.messageId})`;
    },
  });
}
