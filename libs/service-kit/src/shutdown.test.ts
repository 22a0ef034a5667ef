import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { GracefulShutdown } from './shutdown.js';

const logger = createLogger({ service: 'test', level: 'silent' });

describe('GracefulShutdown', () => {
  it('runs steps in order, once, and keeps going past a failing step', async () => {
    const ran: string[] = [];
    const shutdown = new GracefulShutdown({ logger, exitProcess: false })
      .add('stop accepting', () => {
        ran.push('stop accepting');
      })
      .add('drain', async () => {
        await new Promise((r) => setTimeout(r, 10));
        ran.push('drain');
        throw new Error('drain failed');
      })
      .add('close', () => {
        ran.push('close');
      });
    await Promise.all([shutdown.shutdown('test'), shutdown.shutdown('again')]);
    expect(ran).toEqual(['stop accepting', 'drain', 'close']);
  });
});
