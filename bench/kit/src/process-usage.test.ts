import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { cpuOfTree } from './process-usage.js';

describe('cpuOfTree', () => {
  it('keeps counting the CPU of a descendant after it exited and was waited for', async () => {
    // A shell runs a child that spins for 300 ms of CPU and exits, says so, then idles.
    const spin = `const end = process.cpuUsage().user + 300000; while (process.cpuUsage().user < end);`;
    const shell = spawn('sh', ['-c', `"${process.execPath}" -e '${spin}'; echo gone; exec sleep 30`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let output = '';
      shell.stdout.setEncoding('utf8');
      while (!output.includes('gone')) output += (await once(shell.stdout, 'data'))[0] as string;
      // Only the shell (now sleep) is left in the tree; the child's CPU is in its children's times.
      expect(await cpuOfTree(shell.pid!)).toBeGreaterThanOrEqual(250);
    } finally {
      shell.kill('SIGKILL');
    }
  });
});
