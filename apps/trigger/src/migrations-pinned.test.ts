import { fileURLToPath } from 'node:url';
import { pinnedMigrationProblems } from '@platform/service-kit';
import { expect, it } from 'vitest';

it('keeps every landed migration as it landed (migrations are append-only)', async () => {
  expect(await pinnedMigrationProblems(fileURLToPath(new URL('../migrations', import.meta.url)))).toEqual([]);
});
