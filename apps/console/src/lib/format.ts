import type { RunProtocol } from '../api/types.js';

/** A duration for people: `850 ms`, `4.2 s`, `3 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1_000);
  return seconds ? `${minutes} min ${seconds} s` : `${minutes} min`;
}

/** Time left until `expiresAt` as `mm:ss` (or `h:mm:ss`), `expired` once it passed, `never` without one. */
export function formatCountdown(expiresAt: string | number | null, now: number): string {
  if (expiresAt === null) return 'never';
  const left = Math.floor(((typeof expiresAt === 'number' ? expiresAt : Date.parse(expiresAt)) - now) / 1_000);
  if (!Number.isFinite(left)) return 'unknown';
  if (left <= 0) return 'expired';
  const h = Math.floor(left / 3_600);
  const m = Math.floor((left % 3_600) / 60);
  const s = left % 60;
  const pad = (n: number): string => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${pad(m)}:${pad(s)}`;
}

/** A timestamp in the browser's locale, or a dash. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** A number with thousands separators. */
export function formatCount(n: number | undefined): string {
  return (n ?? 0).toLocaleString('en-US');
}

/** JSON text pretty-printed when it parses, as it is otherwise. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The trace viewer link of a trace id, from the configured template (`{traceId}`), or undefined without one. */
export function traceLink(template: string, traceId: string | null | undefined): string | undefined {
  if (!template || !traceId) return undefined;
  return template.replaceAll('{traceId}', encodeURIComponent(traceId));
}

/** `1 instance`, `2 instances`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

const PROTOCOL_NAMES: Record<RunProtocol, string> = {
  rest: 'REST API',
  chat_completions: 'Chat Completions',
  responses: 'Responses API',
  mcp: 'MCP',
  a2a: 'A2A',
  ag_ui: 'AG-UI',
};

/** The protocol a run's message came in by, as people name it; `—` when none (the platform sent it, or an older run). */
export function formatProtocol(protocol: RunProtocol | null | undefined): string {
  return protocol ? PROTOCOL_NAMES[protocol] : '—';
}
