import { staleDocTables } from '@platform/testing';
import { describe, expect, it } from 'vitest';
import { filterErrorCatalogue } from './error-codes.js';
import { FilterErrorCodes } from './filter-errors.js';
import { errorDocTables, filterErrorTable } from './test-support/error-docs.js';

describe('the error-code catalogue and the docs', () => {
  it("docs/triggers.md's filter code table is the catalogue's (run `npx nx run trigger:error-docs` after changing it)", async () => {
    expect(await staleDocTables(errorDocTables)).toEqual([]);
  });

  it('notices a filter code added to the catalogue but not to the doc', async () => {
    const grown = { ...filterErrorCatalogue, FILTER_NEW: { at: 'creation', problem: 'new' } } as const;
    expect(await staleDocTables([filterErrorTable(grown)])).toEqual(['docs/triggers.md']);
  });

  it('names every filter code of the catalogue in FilterErrorCodes', () => {
    expect(Object.values(FilterErrorCodes).sort()).toEqual(Object.keys(filterErrorCatalogue).sort());
  });
});
