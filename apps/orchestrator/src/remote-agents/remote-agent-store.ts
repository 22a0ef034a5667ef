import { compositeKey, QUOTA_NAMES } from '@platform/contracts';
import { inTransaction, quotaExceeded } from '@platform/service-kit';
import type pg from 'pg';
import { ErrorCodes } from '../error-codes.js';
import { remoteAgentError } from './remote-agent-errors.js';
import type { RemoteAgentCardSummary } from './remote-agent-card.js';

/** A remote agent as stored (migrations/0029): never a secret, only the credential's name. */
export interface RemoteAgentRecord {
  tenantId: string;
  name: string;
  url: string;
  description: string;
  credentialService?: string;
  credentialAccount?: string;
  card: RemoteAgentCardSummary;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  createdBy: string;
}

/** What a write sets. */
export interface RemoteAgentInput {
  url: string;
  description: string;
  credentialService?: string;
  credentialAccount?: string;
  card: RemoteAgentCardSummary;
}

/** Who writes, and the tier's `remoteAgents` quota that applies. */
export interface RemoteAgentWriter {
  tenantId: string;
  subject: string;
  tier: string;
  maxRemoteAgents: number;
}

interface Row {
  tenant_id: string;
  name: string;
  url: string;
  description: string;
  credential_service: string | null;
  credential_account: string | null;
  card: RemoteAgentCardSummary;
  version: string;
  created_at: Date;
  updated_at: Date;
  created_by: string;
}

const COLUMNS =
  'tenant_id, name, url, description, credential_service, credential_account, card, version, created_at, updated_at, created_by';

function recordOf(row: Row): RemoteAgentRecord {
  return {
    tenantId: row.tenant_id,
    name: row.name,
    url: row.url,
    description: row.description,
    ...(row.credential_service ? { credentialService: row.credential_service } : {}),
    ...(row.credential_account ? { credentialAccount: row.credential_account } : {}),
    card: row.card,
    version: Number(row.version),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: row.created_by,
  };
}

const notFound = (name: string) =>
  remoteAgentError('not_found', ErrorCodes.REMOTE_AGENT_NOT_FOUND, `no remote agent '${name}'`);

/** The tenant's remote agents in Postgres; every statement is scoped by the tenant. */
export class RemoteAgentStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(tenantId: string, name: string): Promise<RemoteAgentRecord | undefined> {
    const { rows } = await this.pool.query<Row>(
      `SELECT ${COLUMNS} FROM remote_agents WHERE tenant_id = $1 AND name = $2`,
      [tenantId, name],
    );
    return rows[0] ? recordOf(rows[0]) : undefined;
  }

  async list(tenantId: string): Promise<RemoteAgentRecord[]> {
    const { rows } = await this.pool.query<Row>(
      `SELECT ${COLUMNS} FROM remote_agents WHERE tenant_id = $1 ORDER BY name`,
      [tenantId],
    );
    return rows.map(recordOf);
  }

  /** Which of these names are the tenant's remote agents. */
  async existing(tenantId: string, names: string[]): Promise<Set<string>> {
    if (!names.length) return new Set();
    const { rows } = await this.pool.query<{ name: string }>(
      'SELECT name FROM remote_agents WHERE tenant_id = $1 AND name = ANY($2::text[])',
      [tenantId, names],
    );
    return new Set(rows.map((r) => r.name));
  }

  /** A new remote agent: REMOTE_AGENT_EXISTS when the name is taken, QUOTA_EXCEEDED past the tier's count. */
  async create(writer: RemoteAgentWriter, name: string, input: RemoteAgentInput): Promise<RemoteAgentRecord> {
    return inTransaction(this.pool, async (client) => {
      // One creation of the tenant at a time, so two at once cannot both pass the quota.
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        compositeKey('remote_agents', writer.tenantId),
      ]);
      const { rows: counted } = await client.query<{ n: string }>(
        'SELECT count(*) AS n FROM remote_agents WHERE tenant_id = $1',
        [writer.tenantId],
      );
      if (Number(counted[0]!.n) >= writer.maxRemoteAgents)
        throw quotaExceeded({
          quota: QUOTA_NAMES.remoteAgents,
          limit: writer.maxRemoteAgents,
          tier: writer.tier,
          message: `QUOTA_EXCEEDED: the tenant has its tier's ${writer.maxRemoteAgents} remote agents; delete one first`,
        });
      const { rows } = await client.query<Row>(
        `INSERT INTO remote_agents (tenant_id, name, url, description, credential_service, credential_account, card, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8)
         ON CONFLICT (tenant_id, name) DO NOTHING
         RETURNING ${COLUMNS}`,
        [
          writer.tenantId,
          name,
          input.url,
          input.description,
          input.credentialService ?? null,
          input.credentialAccount ?? null,
          JSON.stringify(input.card),
          writer.subject,
        ],
      );
      if (!rows[0])
        throw remoteAgentError(
          'already_exists',
          ErrorCodes.REMOTE_AGENT_EXISTS,
          `a remote agent named '${name}' exists already`,
        );
      return recordOf(rows[0]);
    });
  }

  /** Replaces what a write sets; `expectedVersion` (non-zero) must be the stored one (VERSION_CONFLICT). */
  async update(
    tenantId: string,
    name: string,
    input: RemoteAgentInput,
    expectedVersion: number,
  ): Promise<RemoteAgentRecord> {
    const { rows } = await this.pool.query<Row>(
      `UPDATE remote_agents SET url = $3, description = $4, credential_service = $5, credential_account = $6,
         card = $7::jsonb, version = version + 1, updated_at = now()
       WHERE tenant_id = $1 AND name = $2 AND ($8::bigint = 0 OR version = $8::bigint)
       RETURNING ${COLUMNS}`,
      [
        tenantId,
        name,
        input.url,
        input.description,
        input.credentialService ?? null,
        input.credentialAccount ?? null,
        JSON.stringify(input.card),
        expectedVersion,
      ],
    );
    if (rows[0]) return recordOf(rows[0]);
    const current = await this.get(tenantId, name);
    if (!current) throw notFound(name);
    throw remoteAgentError(
      'failed_precondition',
      ErrorCodes.REMOTE_AGENT_VERSION_CONFLICT,
      `the remote agent is at version ${current.version}, not ${expectedVersion}: read it again and retry`,
      { details: { currentVersion: current.version } },
    );
  }

  async remove(tenantId: string, name: string): Promise<void> {
    const { rowCount } = await this.pool.query('DELETE FROM remote_agents WHERE tenant_id = $1 AND name = $2', [
      tenantId,
      name,
    ]);
    if (!rowCount) throw notFound(name);
  }

  /** The remote agent, or REMOTE_AGENT_NOT_FOUND. */
  async require(tenantId: string, name: string): Promise<RemoteAgentRecord> {
    const found = await this.get(tenantId, name);
    if (!found) throw notFound(name);
    return found;
  }
}
