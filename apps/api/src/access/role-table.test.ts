import { TENANT_ROLES, roleAtLeast, type TenantRole } from '@platform/contracts';
import { staleDocTables } from '@platform/testing';
import { describe, expect, it } from 'vitest';
import { allOperations } from '../api-operations.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import { defineOperation } from '../openapi/operation.js';
import { roleDocTable, roleDocTables } from '../test-support/role-docs.js';
import { useOrchestratorEdgeApp } from '../test-support/orchestrator-edge-app.js';

// The role table (docs/access.md#roles) walked over every operation of the OpenAPI document with
// every tenant role: below the operation's role the answer is 403 FORBIDDEN_ROLE naming it, at or
// above it anything else (the services behind are absent here, so the routes fail past the check).
const SECRET = 'role-table-test-secret-at-least-32-chars';
const { inject, bearer } = useOrchestratorEdgeApp(SECRET, {});

type Documented = {
  method: string;
  path: string;
  operationId: string;
  role: TenantRole | undefined;
  security?: unknown;
};

/** Every operation as the document lists it, with its `x-required-role`. */
function documentedOperations(): Documented[] {
  const found: Documented[] = [];
  for (const [path, item] of Object.entries(buildOpenApiDocument(allOperations).paths ?? {}))
    for (const [method, operation] of Object.entries(item ?? {})) {
      const op = operation as { operationId: string; 'x-required-role'?: TenantRole; security?: unknown };
      found.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        role: op['x-required-role'],
        security: op.security,
      });
    }
  return found;
}

/** A concrete URL for an OpenAPI path: every parameter a plain value. */
const urlOf = (path: string): string => path.replace(/\{[^}]+\}/g, '0123456789abcdef');

describe('the role table', () => {
  const operations = documentedOperations();
  const tenantOperations = allOperations.filter((o) => o.access === 'tenant');

  it('names a role for every tenant operation of the document', () => {
    expect(operations.length).toBe(allOperations.length);
    const withoutRole = tenantOperations
      .filter((o) => !operations.find((d) => d.operationId === o.operationId)?.role)
      .map((o) => o.operationId);
    expect(withoutRole).toEqual([]);
    expect(tenantOperations.length).toBeGreaterThan(30);
  });

  it('refuses, at the type, a tenant operation that names no role', () => {
    // @ts-expect-error a tenant operation must declare its least role
    defineOperation({
      method: 'GET',
      path: '/v1/x',
      operationId: 'x',
      summary: 'x',
      tags: [],
      access: 'tenant',
      responses: {},
    });
  });

  for (const role of TENANT_ROLES) {
    it(`answers a ${role} 403 FORBIDDEN_ROLE below each operation's role, and past the check at or above it`, async () => {
      const authorization = await bearer({ tenant: 'acme', roles: [role] });
      const wrong: string[] = [];
      for (const op of operations) {
        const response = await inject({
          method: op.method,
          url: urlOf(op.path),
          headers: { authorization },
        });
        const body = response.headers['content-type']?.includes('json')
          ? response.json<{ error?: { code?: string; details?: { requiredRole?: string } } }>()
          : {};
        const refused = response.statusCode === 403 && body.error?.code === 'FORBIDDEN_ROLE';
        const shouldRefuse = op.role !== undefined && !roleAtLeast(role, op.role);
        if (refused !== shouldRefuse) wrong.push(`${op.operationId}: ${response.statusCode} ${body.error?.code ?? ''}`);
        else if (refused && body.error?.details?.requiredRole !== op.role)
          wrong.push(`${op.operationId}: names ${body.error?.details?.requiredRole}, needs ${op.role}`);
      }
      expect(wrong).toEqual([]);
    });
  }

  it('gives a token that names no tenant role the default role, member', async () => {
    const authorization = await bearer({ tenant: 'acme', roles: ['ops-something'] });
    const me = await inject({ method: 'GET', url: '/v1/me', headers: { authorization } });
    expect(me.json()).toMatchObject({ tenantId: 'acme', role: 'member' });
    const keys = await inject({ method: 'GET', url: '/v1/keys', headers: { authorization } });
    expect(keys.statusCode).toBe(403);
    expect(keys.json()).toMatchObject({
      error: { code: 'FORBIDDEN_ROLE', details: { requiredRole: 'admin', role: 'member' } },
    });
  });

  it('takes the highest tenant role a token names', async () => {
    const authorization = await bearer({ tenant: 'acme', roles: ['viewer', 'admin', 'member'] });
    const me = await inject({ method: 'GET', url: '/v1/me', headers: { authorization } });
    expect(me.json()).toMatchObject({ role: 'admin' });
  });

  it('refuses Platform-User from a token (only a key acts for a user)', async () => {
    const authorization = await bearer({ tenant: 'acme' });
    const me = await inject({ method: 'GET', url: '/v1/me', headers: { authorization, 'platform-user': 'bob' } });
    expect(me.statusCode).toBe(403);
    expect(me.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
  });

  it("docs/access.md's role table is the operations' (run `npx nx run api:error-docs` after changing a role)", async () => {
    expect(await staleDocTables(roleDocTables)).toEqual([]);
  });

  it('notices an operation whose role changed but the doc did not', async () => {
    const changed = allOperations.map((o) => (o.operationId === 'getMe' ? ({ ...o, role: 'admin' } as typeof o) : o));
    expect(await staleDocTables([roleDocTable(changed)])).toEqual(['docs/access.md']);
  });
});
