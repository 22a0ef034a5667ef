import type { RunListQuery } from '../api/endpoints.js';
import { RUN_PROTOCOLS, RUN_SOURCES, type RunProtocol } from '../api/types.js';

type RunSource = (typeof RUN_SOURCES)[number];
const isSource = (value: string): value is RunSource => (RUN_SOURCES as readonly string[]).includes(value);
const isProtocol = (value: string): value is RunProtocol => (RUN_PROTOCOLS as readonly string[]).includes(value);

/** The run list's filters, as the page's URL carries them (so a filtered list can be shared). */
export interface RunFilters {
  conversationId: string;
  status: string[];
  stopReason: string;
  tool: string;
  source: string;
  protocol: string;
  /** `datetime-local` values (the browser's time zone). */
  createdAfter: string;
  createdBefore: string;
}

export const NO_FILTERS: RunFilters = {
  conversationId: '',
  status: [],
  stopReason: '',
  tool: '',
  source: '',
  protocol: '',
  createdAfter: '',
  createdBefore: '',
};

/** Filters from a URL query string. */
export function filtersFromSearch(search: string): RunFilters {
  const params = new URLSearchParams(search);
  const text = (name: keyof RunFilters): string => params.get(name) ?? '';
  return {
    conversationId: text('conversationId'),
    status: params
      .getAll('status')
      .flatMap((s) => s.split(','))
      .filter(Boolean),
    stopReason: text('stopReason'),
    tool: text('tool'),
    source: text('source'),
    protocol: text('protocol'),
    createdAfter: text('createdAfter'),
    createdBefore: text('createdBefore'),
  };
}

/** The URL query string of filters (empty ones left out). */
export function searchOfFilters(filters: RunFilters): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters) as Array<[keyof RunFilters, string | string[]]>) {
    if (Array.isArray(value)) {
      if (value.length) params.set(name, value.join(','));
    } else if (value) params.set(name, value);
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A `datetime-local` value as the ISO 8601 time the api takes (with `Z`); empty stays empty. */
function localToIso(value: string): string {
  if (!value) return '';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

/** The `GET /v1/runs` query of the filters and a page. */
export function runListQuery(filters: RunFilters, pageToken?: string, pageSize = 25): RunListQuery {
  return {
    conversationId: filters.conversationId.trim() || undefined,
    status: filters.status.length ? filters.status.join(',') : undefined,
    stopReason: filters.stopReason || undefined,
    tool: filters.tool.trim() || undefined,
    source: isSource(filters.source) ? filters.source : undefined,
    protocol: isProtocol(filters.protocol) ? filters.protocol : undefined,
    createdAfter: localToIso(filters.createdAfter) || undefined,
    createdBefore: localToIso(filters.createdBefore) || undefined,
    pageSize,
    pageToken,
  };
}
