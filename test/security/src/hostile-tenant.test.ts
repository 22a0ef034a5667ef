import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedStrings, contractViolations } from './contract-checks.js';
import type { ForeignData } from './hostile-values.js';
import {
  ATTACKER,
  bootAttackedPlatform,
  call,
  foreignDataOf,
  mcpMessage,
  seedTenant,
  send,
  tokenFor,
  VICTIM,
  waitForCatalog,
  type AttackedPlatform,
  type RawAnswer,
  type SeededTenant,
} from './platform-under-attack.js';
import { requestArbitrary, type DocumentedOperation, type HostileRequest } from './request-arbitrary.js';
import type { JsonSchema } from './schema-arbitrary.js';

// A hostile tenant drives every operation of the OpenAPI document the api serves with requests
// generated from that operation's own schemas and examples, mixed with hostile input (NUL and
// unpaired surrogates, bytes that are not UTF-8, bad percent-encodings, huge and deeply nested
// values, wrong types, the other tenant's ids, traversal and separators). Every answer must keep
// the contract: no 5xx, every error in the documented envelope with a code the document lists for
// that operation and status, nothing of the other tenant's, and what was stored is what was sent.
//
// SECURITY_SEED sets the seed (fast-check prints it with the shrunk counterexample on failure):
// unset, the suite repeats one seed so that `npm test` is deterministic; `random` draws a new one
// to explore (seed 887777859 finds an open defect: GET /v1/runs answers 500 to the query it
// prints, recorded on issue 34). SECURITY_RUNS sets the runs per operation.
const DEFAULT_SEED = 886514230;
const SEED_SETTING = process.env['SECURITY_SEED'];
const SEED = SEED_SETTING === 'random' ? Date.now() % 2 ** 31 : Number(SEED_SETTING ?? DEFAULT_SEED);
const RUNS = Number(process.env['SECURITY_RUNS'] ?? 20);

interface OpenApiDocument {
  paths: Record<string, Record<string, Omit<DocumentedOperation, 'method' | 'path'>>>;
  components: { schemas: Record<string, JsonSchema> };
}

let platform: AttackedPlatform;
let document: OpenApiDocument;
let attacker: SeededTenant;
let victim: SeededTenant;
let foreign: ForeignData;
let attackerToken: string;

beforeAll(async () => {
  process.stdout.write(
    `hostile-tenant suite: seed ${SEED}, ${RUNS} runs per operation (SECURITY_SEED=${SEED} repeats it)\n`,
  );
  platform = await bootAttackedPlatform();
  await waitForCatalog(platform.apiUrl);
  const served = await fetch(`${platform.apiUrl}/v1/openapi.json`);
  document = (await served.json()) as OpenApiDocument;
  victim = await seedTenant(platform.apiUrl, VICTIM);
  attacker = await seedTenant(platform.apiUrl, ATTACKER);
  foreign = foreignDataOf(victim);
  attackerToken = await tokenFor(ATTACKER);
}, 300_000);
afterAll(async () => platform?.stop());

function operations(): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ ...operation, method, path })),
  );
}

/** What was written and read back must be equal: tasks (their name and action) and a turn's message. */
async function readBackChanges(
  operation: DocumentedOperation,
  req: HostileRequest,
  answer: RawAnswer,
): Promise<string[]> {
  if (answer.status < 200 || answer.status >= 300 || req.corruptedBody || req.sentBody === undefined) return [];
  const sent = req.sentBody as Record<string, unknown>;
  if (operation.operationId === 'createTask' || operation.operationId === 'updateTask') {
    const { taskId } = JSON.parse(answer.text) as { taskId: string };
    const stored = await call<{ name: string; spec: Record<string, unknown> }>(
      platform.apiUrl,
      'GET',
      `/v1/tasks/${taskId}`,
      ATTACKER,
    );
    return changedStrings(
      { name: sent['name'], action: sent['action'] },
      { name: stored.body.name, action: stored.body.spec['action'] },
    );
  }
  if (operation.operationId === 'sendMessage' && typeof sent['content'] === 'string') {
    const { runId } = JSON.parse(answer.text) as { runId: string };
    const conversation = decodeURIComponent(req.url.split('/')[3] ?? '');
    const history = await call<{
      messages: Array<{ runId: string; message: { role: string; content: string | null } }>;
    }>(platform.apiUrl, 'GET', `/v1/conversations/${encodeURIComponent(conversation)}/messages?limit=1000`, ATTACKER);
    const stored = history.body.messages.find((m) => m.runId === runId && m.message.role === 'user');
    return stored
      ? changedStrings(sent['content'], stored.message.content)
      : [`the turn's message of run ${runId} cannot be read back (${history.status})`];
  }
  return [];
}

function describeRequest(req: HostileRequest): string {
  const body = req.body ? Buffer.from(req.body).toString('utf8') : '';
  return `${req.method} ${req.url.slice(0, 300)} headers ${JSON.stringify(req.headers).slice(0, 200)} body(${req.body?.length ?? 0} bytes) ${JSON.stringify(body.slice(0, 300))}`;
}

describe('a hostile tenant against every operation of the OpenAPI document', () => {
  it('covers the whole document', () => {
    expect(operations().length).toBeGreaterThan(30);
  });

  it("never gets a 5xx, a framework-shaped error, the other tenant's data or silently changed data", async () => {
    // Every run of every operation is checked (no stop at the first failure), so one run shows
    // every kind of defect at once; each kind is reported once per operation with its first request.
    const failures = new Map<string, string>();
    const namedByAttacker = new Set<string>();
    let requests = 0;
    for (const operation of operations()) {
      const arbitrary = requestArbitrary(operation, {
        components: document.components.schemas,
        foreign,
        ownIds: attacker.ids,
      });
      await fc.assert(
        fc.asyncProperty(arbitrary, async (req) => {
          requests += 1;
          const answer = await send(platform.apiUrl, req, attackerToken);
          for (const problem of [
            ...contractViolations(operation, req, answer, foreign, namedByAttacker),
            ...(await readBackChanges(operation, req, answer)),
          ]) {
            const kind = `${operation.method.toUpperCase()} ${operation.path}: ${problem.replace(/\d+/g, 'N').slice(0, 120)}`;
            if (!failures.has(kind))
              failures.set(
                kind,
                `${operation.method.toUpperCase()} ${operation.path}: ${problem}\n  request: ${describeRequest(req)}\n  answer: ${answer.status} ${answer.text.slice(0, 300)}`,
              );
          }
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }
    process.stdout.write(
      `hostile-tenant suite: ${requests} requests, ${failures.size} kinds of failure (seed ${SEED})\n`,
    );
    expect([...failures.values()], `seed ${SEED} (SECURITY_SEED=${SEED} SECURITY_RUNS=${RUNS} repeats it)`).toEqual([]);
  });

  it("left the other tenant's data as it was", async () => {
    const task = await call<{ name: string }>(platform.apiUrl, 'GET', `/v1/tasks/${victim.ids['taskId']![0]}`, VICTIM);
    expect(task.status).toBe(200);
    expect(task.body.name).toContain(victim.secrets[0]);
    const credentials = await call<{ credentials: Array<{ account: string }> }>(
      platform.apiUrl,
      'GET',
      '/v1/credentials',
      VICTIM,
    );
    expect(credentials.body.credentials.map((c) => c.account)).toContain(victim.ids['account']![0]);
    const run = await call(platform.apiUrl, 'GET', `/v1/runs/${victim.ids['runId']![0]}`, VICTIM);
    expect(run.status).toBe(200);
    // Its MCP session (whose id the attacker sent in Mcp-Session-Id, to POST and to DELETE) still answers it.
    const tools = await mcpMessage(
      platform.apiUrl,
      VICTIM,
      { id: 2, method: 'tools/list', params: {} },
      victim.ids['mcpSessionId']![0],
    );
    expect(tools.status).toBe(200);
    expect(tools.text).toContain('"tools"');
  });
});
