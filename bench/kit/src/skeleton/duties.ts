// The product's duties besides a turn's exchanges, which the floor can also do, each in its
// cheapest form (bench/peers README, "The floor with the product's duties"):
// - auth: the api knows its caller by an API key (a digest looked up per request);
// - lease: the orchestrator holds the conversation's lease in Redis for the turn (two round trips),
//   its fencing token written with the run;
// - events: the run's events published once at its end, to a stream that keeps them for replay;
// - learning: the finished turn handed to memory on a JetStream work queue and learned in batches
//   (an extraction request, an embeddings request and one commit per batch);
// - tracing: every process traced by OpenTelemetry's instrumentations, as the platform's services
//   are, the trace carried across NATS in message headers.
export const SKELETON_DUTIES = ['auth', 'lease', 'events', 'learning', 'tracing'] as const;
export type SkeletonDuty = (typeof SKELETON_DUTIES)[number];

/** `all`, `none` (or empty) or a comma-separated subset of {@link SKELETON_DUTIES}; throws on an unknown name. */
export function parseDuties(raw: string | undefined): SkeletonDuty[] {
  const text = (raw ?? '').trim();
  if (text === '' || text === 'none') return [];
  if (text === 'all') return [...SKELETON_DUTIES];
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(SKELETON_DUTIES as readonly string[]).includes(name));
  if (unknown.length)
    throw new Error(`unknown duties: ${unknown.join(', ')} (known: ${SKELETON_DUTIES.join(', ')}, or all)`);
  return names as SkeletonDuty[];
}
