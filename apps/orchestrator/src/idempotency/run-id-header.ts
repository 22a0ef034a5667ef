import { Metadata, type ServerUnaryCall } from '@grpc/grpc-js';
import type { IdempotencyClaim } from '../journal/run-types.js';

/** The header (gRPC initial metadata) that names the run a keyed message is answered with. */
export const RUN_ID_HEADER = 'x-run-id';

/**
 * Tells the caller of a keyed message, before the run ends, which run answers it: its own new
 * run, or the one an earlier send with the key started. A streaming caller (the api) reads that
 * run's events; without a key the caller chose the run id and knows it, so nothing is sent.
 */
export function announceRunId(
  call: Pick<ServerUnaryCall<unknown, unknown>, 'sendMetadata'>,
  claim: IdempotencyClaim | undefined,
  runId: string,
): void {
  if (!claim) return;
  const headers = new Metadata();
  headers.set(RUN_ID_HEADER, runId);
  call.sendMetadata(headers);
}
