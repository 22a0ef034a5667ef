import { toolErrorCatalogue, toolResultCodeCatalogue } from '@platform/contracts';
import { staleDocTables } from '@platform/testing';
import { describe, expect, it } from 'vitest';
import { apiErrorCatalogue } from './error-codes.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { allOperations } from './api-operations.js';
import { errorDocTables, apiErrorTable, toolResultCodeTable } from './test-support/error-docs.js';

/** Each code the OpenAPI document lists under `x-error-codes`, with the statuses it is listed under. */
function documentedCodes(): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const item of Object.values(buildOpenApiDocument(allOperations).paths ?? {}))
    for (const operation of Object.values(item ?? {}))
      for (const [status, response] of Object.entries((operation as { responses?: object }).responses ?? {}))
        for (const code of (response as { 'x-error-codes'?: string[] })['x-error-codes'] ?? [])
          found.set(code, (found.get(code) ?? new Set()).add(status));
  return found;
}

describe('the error-code catalogue and the docs', () => {
  it("docs/api.md's error tables are the catalogues' (run `npx nx run api:error-docs` after changing it)", async () => {
    expect(await staleDocTables(errorDocTables)).toEqual([]);
  });

  it('notices a code added to the catalogue but not to the doc', async () => {
    const grown = { ...apiErrorCatalogue, NEW_CODE_NOT_IN_THE_DOC: { status: 400 } } as const;
    expect(await staleDocTables([apiErrorTable(grown)])).toEqual(['docs/api.md']);
  });

  it('notices a tool call code added to the catalogue but not to the doc', async () => {
    const grown = { ...toolResultCodeCatalogue, NEW_TOOL_CODE: { status: 'failed', happened: 'new' } } as const;
    expect(await staleDocTables([toolResultCodeTable(grown)])).toEqual(['docs/api.md']);
  });

  it('lists every code of the tool protocol among the tool call codes (DEADLINE_EXCEEDED reaches a result as TIMEOUT)', () => {
    const resultCodes = new Set(Object.keys(toolResultCodeCatalogue));
    const missing = Object.keys(toolErrorCatalogue).filter((code) =>
      code === 'DEADLINE_EXCEEDED' ? !resultCodes.has('TIMEOUT') : !resultCodes.has(code),
    );
    expect(missing).toEqual([]);
  });

  it('lists every code of the OpenAPI document, under the status the document gives it', () => {
    const catalogue: Record<string, { status: number | 'event' }> = apiErrorCatalogue;
    const mismatched = [...documentedCodes()].filter(([code, statuses]) =>
      [...statuses].some((status) => String(catalogue[code]?.status) !== status),
    );
    expect(mismatched).toEqual([]);
  });
});
