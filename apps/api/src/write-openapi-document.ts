import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from './openapi/document.js';
import { allOperations } from './api-operations.js';

/**
 * Writes the OpenAPI document without starting the api (`npx nx run api:openapi`), for clients
 * generated at build time (the console): `node dist/write-openapi-document.js [file]`, by
 * default `apps/api/dist/openapi.json`.
 */
const target = resolve(process.argv[2] ?? fileURLToPath(new URL('./openapi.json', import.meta.url)));
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(allOperations), null, 2)}\n`);
process.stdout.write(`wrote ${target}\n`);
