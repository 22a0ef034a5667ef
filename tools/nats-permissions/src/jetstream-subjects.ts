/**
 * The JetStream API subjects one use of one stream needs, so a principal is granted its own
 * streams and nothing else: no stream delete, no purge but where data is deleted ({@link purgeStream}),
 * no other stream's messages or consumers.
 * `$JS.API.INFO` (account info) is asked by every JetStream client when it starts.
 */
export const JETSTREAM_ACCOUNT_INFO = '$JS.API.INFO';

/** Create the stream when missing and keep its settings up to date (`ensureStream`). */
export function manageStream(stream: string): string[] {
  return [`$JS.API.STREAM.INFO.${stream}`, `$JS.API.STREAM.CREATE.${stream}`, `$JS.API.STREAM.UPDATE.${stream}`];
}

/** Read single messages (the last one of a subject) and the stream's info. */
export function readStreamMessages(stream: string): string[] {
  return [
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
  ];
}

/**
 * Consume the stream with consumers of its own: create (durable or ephemeral, filtered or not),
 * look up, delete, pull the next batch, and acknowledge.
 */
export function consumeStream(stream: string): string[] {
  return [
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.*`,
    `$JS.API.CONSUMER.INFO.${stream}.*`,
    `$JS.API.CONSUMER.DELETE.${stream}.*`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.*`,
    `$JS.ACK.${stream}.>`,
  ];
}

/** Purge messages of the stream (by subject): the orchestrator deleting a conversation's run events. */
export function purgeStream(stream: string): string[] {
  return [`$JS.API.STREAM.PURGE.${stream}`];
}
