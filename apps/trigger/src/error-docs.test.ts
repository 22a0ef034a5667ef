import { staleDocTables } from '@platform/testing';
import { describe, expect, it } from 'vitest';
import { filterErrorCatalogue, gateReasonCatalogue } from './error-codes.js';
import { FilterErrorCodes } from './filter-errors.js';
import { errorDocTables, filterErrorTable, gateRefusalTable } from './test-support/error-docs.js';

describe('the error-code catalogue and the docs', () => {
  it("docs/triggers.md's filter and tool gate code tables are the catalogue's (run `npx nx run trigger:error-docs` after changing it)", async () => {
    expect(await staleDocTables(errorDocTables)).toEqual([]);
  });

  it('notices a filter code added to the catalogue but not to the doc', async () => {
    const grown = { ...filterErrorCatalogue, FILTER_NEW: { at: 'creation', problem: 'new' } } as const;
    expect(await staleDocTables([filterErrorTable(grown)])).toEqual(['docs/triggers.md']);
  });

  it('notices a gate code added to the catalogue but not to the doc', async () => {
    const grown = { ...gateReasonCatalogue, NEW_GATE_CODE: { callers: ['condition'] } } as const;
    expect(await staleDocTables([gateRefusalTable(grown)])).toEqual(['docs/triggers.md']);
  });

  it('names every filter code of the catalogue in FilterErrorCodes', () => {
    expect(Object.values(FilterErrorCodes).sort()).toEqual(Object.keys(filterErrorCatalogue).sort());
  });
});
