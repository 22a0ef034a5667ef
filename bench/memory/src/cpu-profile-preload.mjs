// Preload (`NODE_OPTIONS=--import <this file>`, with CPU_PROFILE_DIR set) that profiles a window of
// the process's life: the first SIGUSR2 starts the V8 CPU profiler, the next writes
// $CPU_PROFILE_DIR/<pid>-<n>.cpuprofile. `--cpu-prof` is refused in NODE_OPTIONS, hence the
// inspector session. Open the file in Chrome DevTools, or summarise it with cpu-profile-summary.ts.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  let running = false;
  let written = 0;
  process.on('SIGUSR2', () => {
    void (async () => {
      if (!running) {
        running = true;
        await session.post('Profiler.start');
        return;
      }
      running = false;
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(path.join(dir, `${process.pid}-${++written}.cpuprofile`), JSON.stringify(profile));
    })();
  });
}
