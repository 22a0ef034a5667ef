import { toolErrorCatalogue } from '@platform/contracts';
import { staleDocTables } from '@platform/testing';
import { describe, expect, it } from 'vitest';
import { errorDocTables, toolErrorTable } from './test-support/error-docs.js';

describe('the tool protocol error catalogue and the docs', () => {
  it("docs/tool-protocol.md's error table is the catalogue's (run `npx nx run tool-sdk:error-docs` after changing it)", async () => {
    expect(await staleDocTables(errorDocTables)).toEqual([]);
  });

  it('notices a code added to the catalogue but not to the doc', async () => {
    const grown = {
      ...toolErrorCatalogue,
      NEW_CODE_NOT_IN_THE_DOC: { sentBy: 'runner', status: 'failed', handling: 'new' },
    } as const;
    expect(await staleDocTables([toolErrorTable(grown)])).toEqual(['docs/tool-protocol.md']);
  });
});
