import type { ApiClient } from '../api-client.js';
import { fields, table } from '../format.js';

interface ModelConnection {
  name: string;
  baseUrl: string;
  models: string[];
  keyPreview: string;
  version: number;
  createdAt: string | null;
  updatedAt: string | null;
}

type Result = { json: unknown; text: string };

/** The environment variable the API key is read from: a key never goes on a command line (shell history, `ps`). */
export const API_KEY_VARIABLE = 'MODEL_CONNECTION_API_KEY';

const path = (name: string) => `v1/model-connections/${encodeURIComponent(name)}`;

function shown(connection: ModelConnection): Result {
  return {
    json: { connection },
    text: fields([
      ['name', connection.name],
      ['base URL', connection.baseUrl],
      ['models', connection.models.join(', ') || 'any'],
      ['key', connection.keyPreview],
      ['version', connection.version],
      ['updated', connection.updatedAt],
    ]),
  };
}

/** `model-connections`: the tenant's connections, never a key. */
export async function listModelConnections(api: ApiClient): Promise<Result> {
  const body = await api.get<{ connections: ModelConnection[] }>('v1/model-connections');
  return {
    json: body,
    text: table(
      ['NAME', 'BASE URL', 'MODELS', 'KEY', 'VERSION', 'UPDATED'],
      body.connections.map((c) => [
        c.name,
        c.baseUrl,
        c.models.join(',') || 'any',
        c.keyPreview,
        c.version,
        c.updatedAt,
      ]),
    ),
  };
}

export async function showModelConnection(api: ApiClient, name: string): Promise<Result> {
  return shown((await api.get<{ connection: ModelConnection }>(path(name))).connection);
}

export async function addModelConnection(
  api: ApiClient,
  input: { name: string; baseUrl: string; apiKey: string; models: string[] },
): Promise<Result> {
  return shown((await api.send<{ connection: ModelConnection }>('POST', 'v1/model-connections', input)).connection);
}

/**
 * `update` and `rotate`: the api replaces a connection whole (PUT), so what is not changed here is
 * sent as it is now, guarded by the version read (a concurrent change is a VERSION_CONFLICT).
 */
export async function updateModelConnection(
  api: ApiClient,
  name: string,
  changes: { baseUrl?: string; models?: string[]; apiKey?: string },
): Promise<Result> {
  const { connection } = await api.get<{ connection: ModelConnection }>(path(name));
  const body = {
    baseUrl: changes.baseUrl ?? connection.baseUrl,
    models: changes.models ?? connection.models,
    ...(changes.apiKey !== undefined ? { apiKey: changes.apiKey } : {}),
    expectedVersion: connection.version,
  };
  return shown((await api.send<{ connection: ModelConnection }>('PUT', path(name), body)).connection);
}

export async function deleteModelConnection(api: ApiClient, name: string): Promise<Result> {
  await api.send('DELETE', path(name));
  return { json: { deleted: name }, text: `deleted model connection ${name}\n` };
}
