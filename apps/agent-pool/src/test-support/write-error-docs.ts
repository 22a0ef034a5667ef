import { writeDocTables } from '@platform/testing';
import { errorDocTables } from './error-docs.js';

/** `npx nx run agent-pool:error-docs`: rewrites the docs' error-code tables from the agent pool's catalogue. */
const written = await writeDocTables(errorDocTables);
process.stdout.write(written.length ? `wrote ${written.join(', ')}\n` : 'docs are current\n');
