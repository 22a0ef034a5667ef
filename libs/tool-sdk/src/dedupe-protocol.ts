import { ToolMetadataKey, ToolReplyHeader } from '@platform/contracts';

/**
 * Effectively-once extensions of tool protocol v1 (see docs/tool-protocol.md, "Effectively-once").
 * Both are optional, so runners and callers that ignore them still conform.
 */

/**
 * Endpoint metadata key a runner publishes (value `"true"`) on tools whose duplicate calls it
 * answers from a shared result store instead of running them again. Absent means "no guarantee".
 */
export const DEDUPE_METADATA_KEY = ToolMetadataKey.dedupe;

/** Reply header (value `"true"`) on a response that was replayed from the store, not freshly run. */
export const REPLAYED_HEADER = ToolReplyHeader.replayed;

/** Whether an endpoint's published metadata promises dedupe; anything but `"true"` means no. */
export function readDedupeMetadata(metadata: Record<string, string> | undefined): boolean {
  return metadata?.[DEDUPE_METADATA_KEY] === 'true';
}
