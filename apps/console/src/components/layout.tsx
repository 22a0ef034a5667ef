import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useLocation, useRoute } from 'wouter';
import { useConsole } from '../console-context.js';
import type { TenantRole } from '../lib/roles.js';

/** The menu: each page with the least role that sees it (docs/access.md#roles). */
const PAGES: Array<[path: string, label: string, role: TenantRole]> = [
  ['/runs', 'Runs', 'viewer'],
  ['/agents', 'Agents', 'viewer'],
  ['/conversations', 'Conversations', 'viewer'],
  ['/approvals', 'Approvals', 'viewer'],
  ['/tools', 'Tools', 'viewer'],
  ['/tasks', 'Tasks', 'viewer'],
  ['/memory', 'Memory', 'viewer'],
  ['/accounts', 'Accounts', 'viewer'],
  ['/model-connections', 'Models', 'admin'],
  ['/remote-agents', 'Remote agents', 'viewer'],
  ['/usage', 'Usage', 'viewer'],
  ['/keys', 'API keys', 'admin'],
  ['/audit', 'Audit', 'admin'],
];

function NavLink({ path, label }: { path: string; label: string }) {
  const [active] = useRoute(`${path}/*?`);
  return (
    <li>
      <Link href={path} aria-current={active ? 'page' : undefined} className={active ? 'active' : undefined}>
        {label}
      </Link>
    </li>
  );
}

/** An operator's tenant picker: reads another tenant (Platform-Tenant); the api keeps it read-only. */
function TenantPicker() {
  const { session, viewTenant } = useConsole();
  const [value, setValue] = useState(session.viewTenant ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    viewTenant(value.trim() || undefined);
  };
  return (
    <form className="tenant-picker" onSubmit={submit}>
      <label htmlFor="view-tenant">View tenant (read-only)</label>
      <input
        id="view-tenant"
        value={value}
        placeholder={session.claims.tenant}
        onChange={(e) => setValue(e.target.value)}
      />
      <button type="submit">View</button>
    </form>
  );
}

/**
 * Names the browser tab after the page, and moves the focus to the page's content when the page
 * changes, so screen readers start there.
 */
function useFocusOnNavigation() {
  const [location] = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    const page = PAGES.find(([path]) => location === path || location.startsWith(`${path}/`));
    document.title = page ? `${page[1]} · Agent platform console` : 'Agent platform console';
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [location]);
  return main;
}

export function Layout({ children }: { children: ReactNode }) {
  const { session, config, readOnly, role, can, signOut } = useConsole();
  const main = useFocusOnNavigation();
  const operator = session.claims.roles.includes(config.operatorRole);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <p className="brand">Agent platform</p>
        <p className="who">
          Tenant <strong data-testid="tenant">{session.viewTenant || session.claims.tenant}</strong>
          {readOnly && <span className="badge badge-readonly">read-only</span>}
          {session.claims.subject && <span className="muted"> as {session.claims.subject}</span>}
          <span className="badge" data-testid="role">
            {role}
          </span>
        </p>
        {operator && <TenantPicker />}
        <button type="button" className="link-button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Console">
        <ul>
          {PAGES.filter(([, , needed]) => can(needed)).map(([path, label]) => (
            <NavLink key={path} path={path} label={label} />
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1} ref={main}>
        {children}
      </main>
    </>
  );
}
