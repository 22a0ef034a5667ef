import type { DocTable } from '@platform/testing';
import { filterErrorCatalogue } from '../error-codes.js';

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

/** Every table the trigger service's docs generate from its error catalogue. */
export const errorDocTables: readonly DocTable[] = [filterErrorTable()];
