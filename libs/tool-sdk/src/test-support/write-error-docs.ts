import { writeDocTables } from '@platform/testing';
import { errorDocTables } from './error-docs.js';

/** `npx nx run tool-sdk:error-docs`: rewrites the docs' error-code tables from the tool protocol's catalogue. */
const written = await writeDocTables(errorDocTables);
process.stdout.write(written.length ? `wrote ${written.join(', ')}\n` : 'docs are current\n');
