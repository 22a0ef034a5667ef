/** What the tasks page shows of a task's spec (the document leaves the spec open; docs/triggers.md has it). */
export interface TaskSummary {
  trigger: string;
  instruction: string;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The trigger in words (`cron 0 8 * * * (Europe/Paris)`, `once at …`, `event gmail / email.received`) and the instruction. */
export function summarizeTaskSpec(spec: Record<string, unknown>, formatTime: (iso: string) => string): TaskSummary {
  const trigger = record(spec['trigger']);
  const type = text(trigger['type']) ?? 'unknown';
  const cron = text(trigger['cron']);
  const at = text(trigger['at']);
  const zone = text(trigger['timeZone']);
  const interval = typeof trigger['intervalSeconds'] === 'number' ? trigger['intervalSeconds'] : undefined;
  let described = type;
  if (cron) described = `cron ${cron}${zone ? ` (${zone})` : ''}`;
  else if (at) described = `once at ${formatTime(at)}`;
  else if (type === 'schedule' && interval) described = `every ${interval} s`;
  else if (type === 'event')
    described = `event ${text(trigger['source']) ?? '?'} / ${text(trigger['eventType']) ?? '?'}`;
  else if (type === 'condition')
    described = `condition on ${text(trigger['tool']) ?? '?'}${interval ? `, checked every ${interval} s` : ''}`;
  return { trigger: described, instruction: text(record(spec['action'])['instruction']) ?? '—' };
}

/** A fire's outcome in words: its error, else its run's answer, else a dash. */
export function fireOutcome(fire: { error: { code: string; message: string } | null; result: unknown }): string {
  if (fire.error) return `${fire.error.code}: ${fire.error.message}`;
  return text(record(fire.result)['response']) ?? '—';
}
