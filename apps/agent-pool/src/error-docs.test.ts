import { staleDocTables } from '@platform/testing';
import { describe, expect, it } from 'vitest';
import { agentPoolErrorCatalogue } from './error-codes.js';
import { codesWithoutRow, errorDocTables } from './test-support/error-docs.js';

describe('the error-code catalogue and the docs', () => {
  it("docs/agent-pool.md's error table is the catalogue's (run `npx nx run agent-pool:error-docs` after changing it)", async () => {
    expect(await staleDocTables(errorDocTables)).toEqual([]);
  });

  it('gives every code of the catalogue a row of the table', () => {
    expect(codesWithoutRow()).toEqual([]);
  });

  it('notices a code added to the catalogue without a row', () => {
    const grown = { ...agentPoolErrorCatalogue, NEW_CODE: { kind: 'internal', description: 'new' } } as const;
    expect(codesWithoutRow(grown)).toEqual(['NEW_CODE']);
  });
});
