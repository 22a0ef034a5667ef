/** Bounds of the MCP sessions one api replica keeps (MCP_MAX_SESSIONS, MCP_MAX_SESSIONS_PER_TENANT, MCP_SESSION_IDLE_MS). */
export interface McpSessionLimits {
  maxSessions: number;
  maxPerTenant: number;
  idleMs: number;
}

/** Whom a session belongs to: the tenant and end user of the token that opened it. */
export interface SessionOwner {
  tenantId: string;
  subject: string;
}

/** What the store needs of a session: closing it. */
export interface Closable {
  close(): Promise<void>;
}

interface Entry<S> {
  session: S;
  owner: SessionOwner;
  lastUsedAt: number;
  /** Requests of the session being answered (a tool call's stream): a busy session is never dropped. */
  busy: number;
}

/**
 * The MCP sessions of this replica (docs/protocols.md#mcp, "Sessions"), each bound to the tenant
 * and user that opened it: another caller's request naming it finds nothing, exactly like an
 * unknown id. Bounded per tenant and in all: a new session pushes out its tenant's (or, when the
 * replica is full, anyone's) least recently used idle one; sessions idle past `idleMs` are closed.
 */
export class McpSessions<S extends Closable> {
  private readonly sessions = new Map<string, Entry<S>>();

  constructor(
    private readonly limits: McpSessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /** The caller's session of this id, or undefined (unknown, closed, or another caller's). */
  find(id: string, owner: SessionOwner): S | undefined {
    const entry = this.sessions.get(id);
    if (!entry || entry.owner.tenantId !== owner.tenantId || entry.owner.subject !== owner.subject) return undefined;
    entry.lastUsedAt = this.now();
    return entry.session;
  }

  /** Counts a request of the session as being answered until `release` is called. */
  hold(id: string): () => void {
    const entry = this.sessions.get(id);
    if (!entry) return () => undefined;
    entry.busy++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      entry.busy--;
      entry.lastUsedAt = this.now();
    };
  }

  /**
   * Makes room for a new session of `tenantId`: closes the least recently used idle session of the
   * tenant when it has its most, and of anyone when the replica has its most. False when no room
   * can be made (every such session is answering a request).
   */
  async admit(tenantId: string): Promise<boolean> {
    await this.sweep();
    const ofTenant = [...this.sessions].filter(([, e]) => e.owner.tenantId === tenantId);
    if (ofTenant.length >= this.limits.maxPerTenant && !(await this.dropOldestIdle(ofTenant))) return false;
    if (this.sessions.size >= this.limits.maxSessions && !(await this.dropOldestIdle([...this.sessions]))) return false;
    return true;
  }

  add(id: string, owner: SessionOwner, session: S): void {
    this.sessions.set(id, { session, owner, lastUsedAt: this.now(), busy: 0 });
  }

  /** Forgets a session (it was closed: DELETE, or its transport ended). */
  remove(id: string): void {
    this.sessions.delete(id);
  }

  /** Closes the sessions idle for longer than `idleMs`. */
  async sweep(): Promise<void> {
    const before = this.now() - this.limits.idleMs;
    const stale = [...this.sessions].filter(([, e]) => e.busy === 0 && e.lastUsedAt < before);
    await Promise.all(stale.map(([id]) => this.close(id)));
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }

  private async dropOldestIdle(candidates: Array<[string, Entry<S>]>): Promise<boolean> {
    const idle = candidates.filter(([, e]) => e.busy === 0).sort(([, a], [, b]) => a.lastUsedAt - b.lastUsedAt);
    const oldest = idle[0];
    if (!oldest) return false;
    await this.close(oldest[0]);
    return true;
  }

  private async close(id: string): Promise<void> {
    const entry = this.sessions.get(id);
    if (!entry) return;
    this.sessions.delete(id);
    await entry.session.close().catch(() => undefined);
  }
}
