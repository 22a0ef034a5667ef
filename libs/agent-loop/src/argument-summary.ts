import { cutText } from '@platform/contracts';

/** Argument values longer than the limit are cut in records (records are for display, not replay). */
export function summarizeArguments(text: string, limit: number): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { _raw: cutText(text, limit).text };
    return Object.fromEntries(
      Object.entries(parsed as Record<string, unknown>).map(([k, v]) => {
        const json = typeof v === 'string' ? v : JSON.stringify(v);
        return [k, json.length > limit ? `${cutText(json, limit).text}…` : v];
      }),
    );
  } catch {
    return { _raw: cutText(text, limit).text };
  }
}
