// What every skeleton role reads from its environment (set by skeleton-peer.ts), and how it says
// it is ready: one `READY <port>` line on stdout.
import { parseDuties, type SkeletonDuty } from './duties.js';

/** `SKELETON_DUTIES`: the product's duties this role does besides the exchanges (duties.ts). */
export const DUTIES: ReadonlySet<SkeletonDuty> = new Set(parseDuties(process.env['SKELETON_DUTIES']));

/** The NATS subject the skeleton's tool runner answers on. */
export const TOOL_SUBJECT = 'skeleton.tool.calculator';

export function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

export function announceReady(port: number): void {
  process.stdout.write(`READY ${port}\n`);
}

/** Runs `close` on SIGTERM, then exits. */
export function exitOnTerm(close: () => Promise<unknown>): void {
  process.once('SIGTERM', () => {
    void close().finally(() => process.exit(0));
  });
}
