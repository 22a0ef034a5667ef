-- A credential read in one statement, and read audit rows appended in batches.
--
-- Both functions are SECURITY INVOKER: they act with the caller's rights, and their first step is
-- the one every tenant transaction takes, set_config('role', 'credential_runtime', true) (which
-- fails for a caller that is not a member of credential_runtime), then the tenant with
-- set_config('credential.tenant_id', ..., true). Both settings are transaction-local: called as one
-- statement outside a transaction block (the service's use), they end with that statement, so a
-- pooled connection never carries a tenant or the role into the next request. RLS stays forced;
-- the functions are PL/pgSQL so that their queries are planned after the role switch, under the
-- policy, and replanned if a later call runs as another role.

-- Callers resolve these functions in this schema, so every role may look names up in it (USAGE):
-- it grants no table right (those are held by the two runtime roles only), and a login role with
-- NOINHERIT still reaches no table until a function or a transaction drops into a runtime role.
DO $$
BEGIN
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO PUBLIC', current_schema());
END
$$;

-- One credential of one tenant, read as that tenant under RLS.
CREATE FUNCTION credential_read(p_tenant_id text, p_service text, p_account text)
RETURNS TABLE (
  service     text,
  account     text,
  version     bigint,
  key_id      text,
  wrapped_key bytea,
  ciphertext  bytea,
  created_at  timestamptz,
  updated_at  timestamptz
)
LANGUAGE plpgsql VOLATILE SECURITY INVOKER AS $$
BEGIN
  PERFORM set_config('role', 'credential_runtime', true);
  PERFORM set_config('credential.tenant_id', p_tenant_id, true);
  RETURN QUERY
    SELECT c.service, c.account, c.version, c.key_id, c.wrapped_key, c.ciphertext, c.created_at, c.updated_at
    FROM credentials c
    WHERE c.tenant_id = p_tenant_id AND c.service = p_service AND c.account = p_account;
END
$$;

-- Appends audit rows of any tenants (the arrays are columns of the same rows, in order): each
-- tenant's rows are inserted with that tenant set, so the policy's WITH CHECK holds every row to
-- the tenant it names. Arrays of different lengths leave NULLs, which the NOT NULL columns refuse;
-- a row without a tenant fails the whole call. Returns the number of rows appended.
CREATE FUNCTION credential_append_audit(
  p_tenant_ids text[], p_services text[], p_accounts text[], p_actions text[], p_outcomes text[],
  p_actor_kinds text[], p_subjects text[], p_tools text[], p_run_ids text[], p_call_ids text[], p_ats timestamptz[]
)
RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY INVOKER AS $$
DECLARE
  tenant   text;
  appended bigint := 0;
  inserted bigint;
BEGIN
  PERFORM set_config('role', 'credential_runtime', true);
  FOR tenant IN SELECT DISTINCT t FROM unnest(p_tenant_ids) AS t LOOP
    PERFORM set_config('credential.tenant_id', tenant, true);
    INSERT INTO audit_events (tenant_id, service, account, action, outcome, actor_kind, subject, tool, run_id, call_id, at)
      SELECT r.tenant_id, r.service, r.account, r.action, r.outcome, r.actor_kind, r.subject, r.tool, r.run_id, r.call_id, r.at
      FROM unnest(p_tenant_ids, p_services, p_accounts, p_actions, p_outcomes, p_actor_kinds, p_subjects, p_tools, p_run_ids, p_call_ids, p_ats)
        WITH ORDINALITY AS r(tenant_id, service, account, action, outcome, actor_kind, subject, tool, run_id, call_id, at, ord)
      WHERE r.tenant_id = tenant
      ORDER BY r.ord;
    GET DIAGNOSTICS inserted = ROW_COUNT;
    appended := appended + inserted;
  END LOOP;
  IF appended <> coalesce(cardinality(p_tenant_ids), 0) THEN
    RAISE EXCEPTION 'appended % of % audit rows: every row needs a tenant', appended, cardinality(p_tenant_ids);
  END IF;
  RETURN appended;
END
$$;
