import { startPlatform, type Platform, type PlatformOptions } from '@platform/testing';
import { allocateSuiteRedis, createSuiteDatabase, sharedInfra } from '@platform/testing/vitest';
import { SignJWT } from 'jose';

export const JWT_SECRET = 'e2e-secret-e2e-secret-e2e-secret-e2e';

/** Boots every service against this run's shared servers, with a fresh database and Redis db. */
export async function bootPlatform(label: string, overrides: Partial<PlatformOptions> = {}): Promise<Platform> {
  const lines: string[] = [];
  try {
    return await startPlatform({
      natsUrl: sharedInfra().natsUrl,
      databaseUrl: await createSuiteDatabase(label),
      redisUrl: await allocateSuiteRedis(),
      jwtSecret: JWT_SECRET,
      onLine: (app, line) => lines.push(`[${app}] ${line}`),
      ...overrides,
    });
  } catch (err) {
    throw new Error(`platform failed to start: ${(err as Error).message}\n${lines.slice(-40).join('\n')}`);
  }
}

export async function tokenFor(tenant: string): Promise<string> {
  return new SignJWT({ tenant }).setProtectedHeader({ alg: 'HS256' }).setSubject(`user-of-${tenant}`).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(JWT_SECRET));
}

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/** Calls the platform's HTTP API as a client would. */
export async function api<T = Record<string, unknown>>(platform: Platform, method: string, path: string, tenant: string, body?: unknown): Promise<ApiResponse<T>> {
  const response = await fetch(`${platform.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${await tokenFor(tenant)}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}
