/**
 * Effectively-once extensions of tool protocol v1 that live in the SDK rather than in
 * `@platform/contracts`: both are optional, so runners and callers that ignore them still conform
 * (see docs/tool-protocol.md, "Effectively-once").
 */

/**
 * Endpoint metadata key a runner publishes (value `"true"`) on tools whose duplicate calls it
 * answers from a shared result store instead of running them again. Absent means "no guarantee".
 */
export const DEDUPE_METADATA_KEY = 'platform.dedupe';

/** Reply header (value `"true"`) on a response that was replayed from the store, not freshly run. */
export const REPLAYED_HEADER = 'Platform-Replayed';

/** Whether an endpoint's published metadata promises dedupe; anything but `"true"` means no. */
export function readDedupeMetadata(metadata: Record<string, string> | undefined): boolean {
  return metadata?.[DEDUPE_METADATA_KEY] === 'true';
}
