import { createHash, randomUUID } from 'node:crypto';
import { link, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The call an email belongs to. Call ids are unique only within a conversation, so the key has all three. */
export interface OutboxCall {
  tenantId: string;
  conversationId: string;
  callId: string;
}

export interface OutboxEmail {
  to: string;
  subject: string;
  body: string;
  /** The model's extra instruction, kept for the reader of the outbox. */
  taskInstruction?: string | undefined;
  /** The connected account it is sent from (`google/primary`): a name, never its token. */
  from?: string | undefined;
}

/** One file of the outbox. */
export interface OutboxRecord extends OutboxEmail, OutboxCall {
  messageId: string;
  queuedAt: string;
}

export interface Delivery {
  messageId: string;
  file: string;
  /** This call had already written its email; nothing new was written. */
  duplicate: boolean;
}

/**
 * The example's stand-in for a mail server: a directory with one JSON file per email. The file name
 * is derived from the call, and the file appears atomically and only if it does not exist yet, so
 * one call can never leave two emails, even without Redis (the idempotency key the docs ask
 * `external` tools to pass downstream).
 */
export class Outbox {
  constructor(readonly dir: string) {}

  /** Creates the directory; call at boot so a bad OUTBOX_DIR stops the runner before it serves. */
  async ensure(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
  }

  /** Writes the email of `call`, once; a repeat of the call gets the first delivery's message id. */
  async deliver(email: OutboxEmail, call: OutboxCall): Promise<Delivery> {
    const key = createHash('sha256')
      .update(JSON.stringify([call.tenantId, call.conversationId, call.callId]))
      .digest('hex')
      .slice(0, 32);
    const messageId = `${key}@travel-runner.example`;
    const file = path.join(this.dir, `${key}.json`);
    const record: OutboxRecord = { messageId, ...call, ...email, queuedAt: new Date().toISOString() };
    await this.ensure();
    // Write aside, then link into place: readers never see half a file, and link refuses an existing name.
    const draft = path.join(this.dir, `.${key}.${randomUUID()}.tmp`);
    await writeFile(draft, `${JSON.stringify(record, null, 2)}\n`, { flag: 'wx' });
    try {
      await link(draft, file);
      return { messageId, file, duplicate: false };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return { messageId, file, duplicate: true };
    } finally {
      await rm(draft, { force: true });
    }
  }
}
