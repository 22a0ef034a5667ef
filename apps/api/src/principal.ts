import type { FastifyRequest } from 'fastify';
import type { Principal } from './auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** The verified caller of an authenticated route (the auth hook sets it before any handler runs). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route reached without authentication');
  return request.principal;
}
