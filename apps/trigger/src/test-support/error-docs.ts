import type { DocTable } from '@platform/testing';
import { filterErrorCatalogue, gateReasonCatalogue, taskToolRefusals } from '../error-codes.js';

type GateReasonCatalogue = Record<string, { callers: readonly string[]; note?: string }>;
type FilterCatalogue = Record<string, { at: 'creation' | 'evaluation'; problem: string }>;

/** docs/triggers.md's table of the filter codes a task is refused with at creation. */
export function filterErrorTable(catalogue: FilterCatalogue = filterErrorCatalogue): DocTable {
  return {
    file: 'docs/triggers.md',
    name: 'trigger-filter-error-codes',
    header: ['code', 'problem'],
    rows: () =>
      Object.entries(catalogue)
        .filter(([, spec]) => spec.at === 'creation')
        .map(([code, spec]) => [`\`${code}\``, spec.problem]),
  };
}

/**
 * docs/triggers.md's tool gate table: each caller's refusal code, the field it names, and the gate's
 * codes it carries as `details.reason` (each code's note at the first row that lists it).
 */
export function gateRefusalTable(reasons: GateReasonCatalogue = gateReasonCatalogue): DocTable {
  return {
    file: 'docs/triggers.md',
    name: 'trigger-gate-refusal-codes',
    header: ['Code', 'Field', '`details.reason`'],
    rows: () => {
      const explained = new Set<string>();
      return Object.entries(taskToolRefusals).map(([caller, { code, field }]) => {
        const listed = Object.entries(reasons).filter(([, spec]) => spec.callers.includes(caller));
        const cells = listed.map(([reason, spec]) => {
          const noted = spec.note && !explained.has(reason);
          explained.add(reason);
          return noted ? `\`${reason}\` (${spec.note})` : `\`${reason}\``;
        });
        return [`\`${code}\``, `\`${field}\``, cells.join(', ')];
      });
    },
  };
}

/** Every table the trigger service's docs generate from its error catalogue. */
export const errorDocTables: readonly DocTable[] = [filterErrorTable(), gateRefusalTable()];
