import { writeDocTables } from '@platform/testing';
import { errorDocTables } from './error-docs.js';
import { roleDocTables } from './role-docs.js';

/** `npx nx run api:error-docs`: rewrites the docs' error-code tables and docs/access.md's role table from the code. */
const written = await writeDocTables([...errorDocTables, ...roleDocTables]);
process.stdout.write(written.length ? `wrote ${written.join(', ')}\n` : 'docs are current\n');
