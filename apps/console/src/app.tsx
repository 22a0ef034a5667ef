import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { Redirect, Route, Router, Switch } from 'wouter';
import { loadConsoleConfig, PlatformApi } from './api/endpoints.js';
import type { ConsoleConfig } from './api/types.js';
import { Layout } from './components/layout.js';
import { EmptyState } from './components/states.js';
import { ConsoleContext, type ConsoleContextValue } from './console-context.js';
import { isReadOnly, loadSession, saveSession, type Session } from './lib/session.js';
import { AccountsPage } from './pages/accounts.js';
import { AgentPage, NewAgentPage } from './pages/agent-page.js';
import { AgentsPage } from './pages/agents.js';
import { ApprovalsPage } from './pages/approvals.js';
import { ChatPage } from './pages/chat-page.js';
import { ConversationsPage } from './pages/conversations.js';
import { MemoryPage } from './pages/memory.js';
import { ModelConnectionsPage } from './pages/model-connections.js';
import { RemoteAgentsPage } from './pages/remote-agents.js';
import { RunPage } from './pages/run-page.js';
import { RunsPage } from './pages/runs.js';
import { SignIn } from './pages/sign-in.js';
import { TasksPage } from './pages/tasks.js';
import { ToolsPage } from './pages/tools.js';
import { UsagePage } from './pages/usage.js';
import { KeysPage } from './pages/keys.js';
import { AuditPage } from './pages/audit.js';
import { roleAtLeast, roleFromClaims, type TenantRole } from './lib/roles.js';
import { useConsole } from './console-context.js';

/** A page for callers of at least `role`; others are told which role it needs (the api refuses them anyway). */
function ForRole({ role, children }: { role: TenantRole; children: ReactNode }) {
  const { can } = useConsole();
  if (!can(role))
    return (
      <EmptyState title="This page is not for your role.">
        It needs the tenant role {role} (docs/access.md#roles); ask an admin of the tenant.
      </EmptyState>
    );
  return <>{children}</>;
}

function Pages() {
  return (
    <Switch>
      <Route path="/">
        <Redirect to="/runs" replace />
      </Route>
      <Route path="/runs" component={RunsPage} />
      <Route path="/runs/:runId" component={RunPage} />
      <Route path="/agents" component={AgentsPage} />
      <Route path="/agents/new" component={NewAgentPage} />
      <Route path="/agents/:agent" component={AgentPage} />
      <Route path="/conversations" component={ConversationsPage} />
      <Route path="/conversations/:conversationId" component={ChatPage} />
      <Route path="/approvals" component={ApprovalsPage} />
      <Route path="/tools" component={ToolsPage} />
      <Route path="/tasks" component={TasksPage} />
      <Route path="/memory" component={MemoryPage} />
      <Route path="/accounts" component={AccountsPage} />
      <Route path="/model-connections" component={ModelConnectionsPage} />
      <Route path="/remote-agents" component={RemoteAgentsPage} />
      <Route path="/usage" component={UsagePage} />
      <Route path="/keys">
        <ForRole role="admin">
          <KeysPage />
        </ForRole>
      </Route>
      <Route path="/audit">
        <ForRole role="admin">
          <AuditPage />
        </ForRole>
      </Route>
      <Route>
        <EmptyState title="There is no such page.">Pick a page from the menu.</EmptyState>
      </Route>
    </Switch>
  );
}

/** The console: sign-in until a token is given, then the pages as that token's tenant. */
export function App() {
  const [session, setSession] = useState<Session | undefined>(() => loadSession(window.sessionStorage));
  const [config, setConfig] = useState<ConsoleConfig>({ traceUrlTemplate: '', operatorRole: 'platform-operator' });
  useEffect(() => {
    void loadConsoleConfig().then(setConfig);
  }, []);
  const change = (next: Session | undefined) => {
    saveSession(window.sessionStorage, next);
    setSession(next);
  };
  // A cache per signed-in view: another token or tenant never sees what this one loaded. The pages
  // mount again with it (a mounted query stays on the client it started with).
  const viewKey = `${session?.token ?? ''}|${session?.viewTenant ?? ''}`;
  // The role the api gives this caller (GET /v1/me, as the viewed tenant for an operator).
  const [me, setMe] = useState<{ key: string; role: TenantRole } | undefined>();
  useEffect(() => {
    if (!session) return;
    const key = viewKey;
    new PlatformApi({ token: session.token, viewTenant: isReadOnly(session) ? session.viewTenant : undefined })
      .me()
      .then((answer) => setMe({ key, role: answer.role }))
      .catch(() => undefined); // the pages show the api's refusal themselves
  }, [viewKey]); // eslint-disable-line react-hooks/exhaustive-deps
  const queries = useMemo(() => (viewKey ? new QueryClient() : undefined), [viewKey]);
  const context = useMemo((): ConsoleContextValue | undefined => {
    if (!session) return undefined;
    const role = me?.key === viewKey ? me.role : roleFromClaims(session.claims.roles);
    return {
      session,
      config,
      api: new PlatformApi({ token: session.token, viewTenant: isReadOnly(session) ? session.viewTenant : undefined }),
      readOnly: isReadOnly(session) || role === 'viewer',
      role,
      can: (required) => roleAtLeast(role, required),
      viewTenant: (tenant) => change({ ...session, viewTenant: tenant }),
      signOut: () => change(undefined),
    };
  }, [session, config, me, viewKey]);
  return (
    <Router base={import.meta.env.BASE_URL.replace(/\/$/, '')}>
      {context && queries ? (
        <QueryClientProvider key={viewKey} client={queries}>
          <ConsoleContext.Provider value={context}>
            <Layout>
              <Pages />
            </Layout>
          </ConsoleContext.Provider>
        </QueryClientProvider>
      ) : (
        <SignIn onSignIn={change} />
      )}
    </Router>
  );
}
