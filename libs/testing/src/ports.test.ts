import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePorts } from './ports.js';

describe('freePorts', () => {
  it('gives distinct ports that can be bound', async () => {
    const ports = await freePorts(8);
    expect(new Set(ports).size).toBe(8);
    for (const port of ports) {
      await new Promise<void>((resolve, reject) => {
        const server = net.createServer();
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
      });
    }
  });
});
