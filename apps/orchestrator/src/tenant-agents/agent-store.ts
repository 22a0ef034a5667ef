import { randomUUID } from 'node:crypto';
import { compositeKey, QUOTA_NAMES, type AgentSpec } from '@platform/contracts';
import { inTransaction, quotaExceeded } from '@platform/service-kit';
import type pg from 'pg';
import { agentDeleted, agentError, agentNotFound, nameTaken, staleRevision, versionNotFound } from './agent-errors.js';
import { ErrorCodes } from '../error-codes.js';
import {
  TENANT_AGENT_PREFIX,
  type AgentRecord,
  type AgentVersionRecord,
  type AgentWriter,
  type ConversationPinRecord,
} from './agent-types.js';

const UNIQUE_VIOLATION = '23505';

interface AgentRow {
  tenant_id: string;
  agent_id: string;
  name: string;
  revision: string;
  active_version: number | null;
  latest_version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  created_by: string;
  spec: AgentSpec;
}

interface VersionRow {
  agent_id: string;
  version: number;
  spec: AgentSpec;
  created_at: Date;
  created_by: string;
  published_at: Date | null;
}

/** The agent's columns with the spec of its active version (else its latest). */
const AGENT_COLUMNS = `a.tenant_id, a.agent_id, a.name, a.revision, a.active_version, a.latest_version, a.created_at,
  a.updated_at, a.deleted_at, a.created_by,
  (SELECT v.spec FROM agent_versions v WHERE v.tenant_id = a.tenant_id AND v.agent_id = a.agent_id
     AND v.version = coalesce(a.active_version, a.latest_version)) AS spec`;

/** Matches an agent by id, or a live agent by name (an id wins over a name that looks like one). */
const BY_REF = `a.tenant_id = $1 AND (a.agent_id = $2 OR (a.name = $2 AND a.deleted_at IS NULL))`;
const REF_ORDER = `ORDER BY (a.agent_id = $2) DESC LIMIT 1`;

function toAgent(row: AgentRow): AgentRecord {
  return {
    tenantId: row.tenant_id,
    agentId: row.agent_id,
    name: row.name,
    revision: Number(row.revision),
    activeVersion: row.active_version,
    latestVersion: row.latest_version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
    createdBy: row.created_by,
    spec: row.spec,
  };
}

function toVersion(row: VersionRow): AgentVersionRecord {
  return {
    agentId: row.agent_id,
    version: row.version,
    spec: row.spec,
    createdAt: row.created_at,
    createdBy: row.created_by,
    publishedAt: row.published_at,
  };
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string }).code === UNIQUE_VIOLATION;
}

/** What a listing asks for. */
export interface AgentListQuery {
  limit: number;
  /** The last agent of the previous page (name, then id: a deleted agent may share a live one's name). */
  after?: { name: string; agentId: string };
  search?: string;
  labels: [string, string][];
  includeDeleted: boolean;
}

/**
 * The tenant agents in Postgres (migration 0012). Every statement names the tenant. A write
 * reads the agent `FOR UPDATE` and checks `if_match` in the same transaction, so of two writers
 * that read the same revision exactly one wins; the other gets STALE_REVISION.
 */
export class AgentStore {
  constructor(private readonly pool: pg.Pool) {}

  async find(tenantId: string, ref: string): Promise<AgentRecord | undefined> {
    const { rows } = await this.pool.query<AgentRow>({
      name: 'agents-find',
      text: `SELECT ${AGENT_COLUMNS} FROM agents a WHERE ${BY_REF} ${REF_ORDER}`,
      values: [tenantId, ref],
    });
    return rows[0] ? toAgent(rows[0]) : undefined;
  }

  /** The names of these that are live agents of the tenant. */
  async liveNames(tenantId: string, names: string[]): Promise<Set<string>> {
    if (!names.length) return new Set();
    const { rows } = await this.pool.query<{ name: string }>(
      'SELECT name FROM agents WHERE tenant_id = $1 AND deleted_at IS NULL AND name = ANY($2::text[])',
      [tenantId, names],
    );
    return new Set(rows.map((r) => r.name));
  }

  async list(tenantId: string, query: AgentListQuery): Promise<AgentRecord[]> {
    const values: unknown[] = [tenantId, query.limit];
    const where = ['a.tenant_id = $1'];
    if (!query.includeDeleted) where.push('a.deleted_at IS NULL');
    if (query.after !== undefined) {
      values.push(query.after.name, query.after.agentId);
      where.push(`(a.name COLLATE "C", a.agent_id COLLATE "C") > ($${values.length - 1}, $${values.length})`);
    }
    const outer: string[] = [];
    if (query.search) {
      values.push(`%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      outer.push(`(name ILIKE $${values.length} OR coalesce(spec->>'description', '') ILIKE $${values.length})`);
    }
    for (const [key, value] of query.labels) {
      values.push(JSON.stringify({ [key]: value }));
      outer.push(`coalesce(spec->'labels', '{}'::jsonb) @> $${values.length}::jsonb`);
    }
    const { rows } = await this.pool.query<AgentRow>(
      `SELECT * FROM (SELECT ${AGENT_COLUMNS} FROM agents a WHERE ${where.join(' AND ')}) AS listed
       ${outer.length ? `WHERE ${outer.join(' AND ')}` : ''}
       ORDER BY name COLLATE "C", agent_id COLLATE "C" LIMIT $2`,
      values,
    );
    return rows.map(toAgent);
  }

  /** A new agent with v1 (published unless `draft`). */
  async create(writer: AgentWriter, spec: AgentSpec, draft: boolean): Promise<AgentRecord> {
    const agentId = `${TENANT_AGENT_PREFIX}${randomUUID()}`;
    try {
      return await inTransaction(this.pool, async (client) => {
        // One creation of the tenant at a time, so two at once cannot both pass the quota.
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
          compositeKey('agents', writer.tenantId),
        ]);
        const { rows } = await client.query<{ n: string }>(
          'SELECT count(*) AS n FROM agents WHERE tenant_id = $1 AND deleted_at IS NULL',
          [writer.tenantId],
        );
        if (Number(rows[0]!.n) >= writer.maxAgents)
          throw quotaExceeded({
            quota: QUOTA_NAMES.agents,
            limit: writer.maxAgents,
            tier: writer.tier,
            message: `QUOTA_EXCEEDED: the tenant has its tier's ${writer.maxAgents} agents; delete one first`,
          });
        await client.query(
          `INSERT INTO agents (tenant_id, agent_id, name, revision, active_version, latest_version, created_by)
           VALUES ($1, $2, $3, 1, $4, 1, $5)`,
          [writer.tenantId, agentId, spec.name, draft ? null : 1, writer.subject],
        );
        await client.query(
          `INSERT INTO agent_versions (tenant_id, agent_id, version, spec, created_by, published_at)
           VALUES ($1, $2, 1, $3::jsonb, $4, CASE WHEN $5 THEN now() END)`,
          [writer.tenantId, agentId, JSON.stringify(spec), writer.subject, !draft],
        );
        if (!draft) await this.recordPublication(client, writer, agentId, 1);
        return this.mustRead(client, writer.tenantId, agentId);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken(spec.name);
      throw err;
    }
  }

  /** A new version from a whole spec (published unless `draft`); `ifMatch` must be the current revision. */
  async update(
    writer: AgentWriter,
    ref: string,
    spec: AgentSpec,
    ifMatch: number,
    draft: boolean,
  ): Promise<AgentRecord> {
    try {
      return await this.write(writer.tenantId, ref, ifMatch, async (client, agent) => {
        if (agent.latestVersion >= writer.maxVersions)
          throw quotaExceeded({
            quota: QUOTA_NAMES.agentVersions,
            limit: writer.maxVersions,
            tier: writer.tier,
            message: `QUOTA_EXCEEDED: the agent has its tier's ${writer.maxVersions} versions`,
          });
        const version = agent.latestVersion + 1;
        await client.query(
          `INSERT INTO agent_versions (tenant_id, agent_id, version, spec, created_by, published_at)
           VALUES ($1, $2, $3, $4::jsonb, $5, CASE WHEN $6 THEN now() END)`,
          [writer.tenantId, agent.agentId, version, JSON.stringify(spec), writer.subject, !draft],
        );
        if (!draft) await this.recordPublication(client, writer, agent.agentId, version);
        await client.query(
          `UPDATE agents SET name = $3, latest_version = $4, active_version = CASE WHEN $5 THEN $4 ELSE active_version END,
             revision = revision + 1, updated_at = now()
           WHERE tenant_id = $1 AND agent_id = $2`,
          [writer.tenantId, agent.agentId, spec.name, version, !draft],
        );
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken(spec.name);
      throw err;
    }
  }

  /** Marks it deleted; pins stay, so a pinned conversation is told the agent is deleted rather than moved elsewhere. */
  async delete(tenantId: string, ref: string, ifMatch: number): Promise<AgentRecord> {
    return this.write(tenantId, ref, ifMatch, async (client, agent) => {
      await client.query(
        `UPDATE agents SET deleted_at = now(), revision = revision + 1, updated_at = now() WHERE tenant_id = $1 AND agent_id = $2`,
        [tenantId, agent.agentId],
      );
    });
  }

  /** Makes `version` the active one (a draft, or an older version). */
  async publish(writer: AgentWriter, ref: string, version: number, ifMatch: number): Promise<AgentRecord> {
    return this.write(writer.tenantId, ref, ifMatch, async (client, agent) => {
      if (version < 1 || version > agent.latestVersion) throw versionNotFound(ref, version);
      await client.query(
        'UPDATE agent_versions SET published_at = now() WHERE tenant_id = $1 AND agent_id = $2 AND version = $3',
        [writer.tenantId, agent.agentId, version],
      );
      await this.recordPublication(client, writer, agent.agentId, version);
      await this.activate(client, writer.tenantId, agent.agentId, version);
    });
  }

  /** Undoes the newest publication not undone yet: the version published before it is active again. */
  async rollback(writer: AgentWriter, ref: string, ifMatch: number): Promise<AgentRecord> {
    return this.write(writer.tenantId, ref, ifMatch, async (client, agent) => {
      const { rows } = await client.query<{ seq: string; version: number }>(
        `SELECT seq, version FROM agent_publications WHERE tenant_id = $1 AND agent_id = $2 AND NOT rolled_back
         ORDER BY seq DESC LIMIT 2`,
        [writer.tenantId, agent.agentId],
      );
      const [current, previous] = rows;
      if (!current || !previous)
        throw agentError(
          'failed_precondition',
          ErrorCodes.NOTHING_TO_ROLL_BACK,
          `the agent '${agent.name}' has no earlier publication to roll back to`,
        );
      await client.query(
        'UPDATE agent_publications SET rolled_back = true WHERE tenant_id = $1 AND agent_id = $2 AND seq = $3',
        [writer.tenantId, agent.agentId, current.seq],
      );
      await client.query(
        'UPDATE agent_versions SET published_at = now() WHERE tenant_id = $1 AND agent_id = $2 AND version = $3',
        [writer.tenantId, agent.agentId, previous.version],
      );
      await this.activate(client, writer.tenantId, agent.agentId, previous.version);
    });
  }

  async versions(tenantId: string, agentId: string, limit: number, below?: number): Promise<AgentVersionRecord[]> {
    const { rows } = await this.pool.query<VersionRow>(
      `SELECT agent_id, version, spec, created_at, created_by, published_at FROM agent_versions
       WHERE tenant_id = $1 AND agent_id = $2 AND ($3::int IS NULL OR version < $3) ORDER BY version DESC LIMIT $4`,
      [tenantId, agentId, below ?? null, limit],
    );
    return rows.map(toVersion);
  }

  async version(tenantId: string, agentId: string, version: number): Promise<AgentVersionRecord | undefined> {
    const { rows } = await this.pool.query<VersionRow>({
      name: 'agents-version',
      text: `SELECT agent_id, version, spec, created_at, created_by, published_at FROM agent_versions
             WHERE tenant_id = $1 AND agent_id = $2 AND version = $3`,
      values: [tenantId, agentId, version],
    });
    return rows[0] ? toVersion(rows[0]) : undefined;
  }

  async pin(
    tenantId: string,
    conversationId: string,
    agentId: string,
    version: number,
    by: string,
  ): Promise<ConversationPinRecord> {
    const { rows } = await this.pool.query<PinRow>(
      `INSERT INTO conversation_agent_pins (tenant_id, conversation_id, agent_id, version, pinned_by)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, conversation_id) DO UPDATE SET agent_id = $3, version = $4, pinned_by = $5, pinned_at = now()
       RETURNING conversation_id, agent_id, version, pinned_at, pinned_by`,
      [tenantId, conversationId, agentId, version, by],
    );
    return toPin(rows[0]!);
  }

  async pinOf(tenantId: string, conversationId: string): Promise<ConversationPinRecord | undefined> {
    const { rows } = await this.pool.query<PinRow>({
      name: 'agents-pin-of',
      text: `SELECT conversation_id, agent_id, version, pinned_at, pinned_by FROM conversation_agent_pins
             WHERE tenant_id = $1 AND conversation_id = $2`,
      values: [tenantId, conversationId],
    });
    return rows[0] ? toPin(rows[0]) : undefined;
  }

  async unpin(tenantId: string, conversationId: string): Promise<ConversationPinRecord | undefined> {
    const { rows } = await this.pool.query<PinRow>(
      `DELETE FROM conversation_agent_pins WHERE tenant_id = $1 AND conversation_id = $2
       RETURNING conversation_id, agent_id, version, pinned_at, pinned_by`,
      [tenantId, conversationId],
    );
    return rows[0] ? toPin(rows[0]) : undefined;
  }

  /**
   * One write to a live agent: reads it `FOR UPDATE` (two writers queue here), checks `ifMatch`
   * (0: no check), lets `change` write, and answers the agent as it is then.
   */
  private async write(
    tenantId: string,
    ref: string,
    ifMatch: number,
    change: (client: pg.PoolClient, agent: AgentRecord) => Promise<void>,
  ): Promise<AgentRecord> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<AgentRow>(
        `SELECT ${AGENT_COLUMNS} FROM agents a WHERE ${BY_REF} ${REF_ORDER} FOR UPDATE OF a`,
        [tenantId, ref],
      );
      if (!rows[0]) throw agentNotFound(ref);
      const agent = toAgent(rows[0]);
      if (agent.deletedAt) throw agentDeleted(ref);
      if (ifMatch !== 0 && ifMatch !== agent.revision) throw staleRevision(agent.revision, ifMatch);
      await change(client, agent);
      return this.mustRead(client, tenantId, agent.agentId);
    });
  }

  private async activate(client: pg.PoolClient, tenantId: string, agentId: string, version: number): Promise<void> {
    await client.query(
      `UPDATE agents SET active_version = $3, revision = revision + 1, updated_at = now() WHERE tenant_id = $1 AND agent_id = $2`,
      [tenantId, agentId, version],
    );
  }

  private async recordPublication(
    client: pg.PoolClient,
    writer: Pick<AgentWriter, 'tenantId' | 'subject'>,
    agentId: string,
    version: number,
  ): Promise<void> {
    await client.query(
      `INSERT INTO agent_publications (tenant_id, agent_id, seq, version, published_by)
       SELECT $1, $2, coalesce(max(seq), 0) + 1, $3, $4 FROM agent_publications WHERE tenant_id = $1 AND agent_id = $2`,
      [writer.tenantId, agentId, version, writer.subject],
    );
  }

  private async mustRead(client: pg.PoolClient, tenantId: string, agentId: string): Promise<AgentRecord> {
    const { rows } = await client.query<AgentRow>(
      `SELECT ${AGENT_COLUMNS} FROM agents a WHERE a.tenant_id = $1 AND a.agent_id = $2`,
      [tenantId, agentId],
    );
    return toAgent(rows[0]!);
  }
}

interface PinRow {
  conversation_id: string;
  agent_id: string;
  version: number;
  pinned_at: Date;
  pinned_by: string;
}

function toPin(row: PinRow): ConversationPinRecord {
  return {
    conversationId: row.conversation_id,
    agentId: row.agent_id,
    version: row.version,
    pinnedAt: row.pinned_at,
    pinnedBy: row.pinned_by,
  };
}
