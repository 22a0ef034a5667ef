#!/usr/bin/env node
// Mints a development JWT for the api: `node scripts/dev-token.mjs [tenant] [ttl] [roles]`
// (roles comma-separated, e.g. `platform-operator` for platformctl).
// Signs with AUTH_JWT_SECRET (HS256), or the local stack's development secret when unset.
// The api refuses tokens that live longer than AUTH_MAX_TOKEN_LIFETIME (default 24h): keep ttl within it.
import { SignJWT } from 'jose';

const DEV_SECRET = 'local-dev-secret-change-me-local-dev-secret';
const [tenant = 'demo-tenant', ttl = '12h', roles = ''] = process.argv.slice(2);
const secret = process.env.AUTH_JWT_SECRET || DEV_SECRET;

const roleList = roles
  .split(',')
  .map((r) => r.trim())
  .filter(Boolean);
const token = await new SignJWT(roleList.length > 0 ? { tenant, roles: roleList } : { tenant })
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject(`developer@${tenant}`)
  .setIssuedAt()
  .setExpirationTime(ttl)
  .sign(new TextEncoder().encode(secret));
process.stdout.write(`${token}\n`);
