// Summarises a V8 .cpuprofile: self time by function and by package (node_modules/<name>, node:
// internals, the app's own files), as fractions of all samples (robust to the host's load).
// Run: node --import tsx bench/memory/src/cpu-profile-summary.ts <file.cpuprofile> [top=30]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: cpu-profile-summary.ts <file.cpuprofile> [top]');
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfSamples = new Map<number, number>();
for (const id of profile.samples) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
const total = profile.samples.length;

function packageOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (module) return module[1]!;
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const own = /\/(apps|libs)\/([^/]+)\//.exec(url);
  return own ? `${own[1]}/${own[2]}` : url;
}

const functions = new Map<string, number>();
const packages = new Map<string, number>();
for (const [id, count] of selfSamples) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const key = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
  functions.set(key, (functions.get(key) ?? 0) + count);
  const pkg = packageOf(url, functionName);
  packages.set(pkg, (packages.get(pkg) ?? 0) + count);
}
const show = (title: string, map: Map<string, number>): void => {
  process.stdout.write(`${title} (${total} samples)\n`);
  for (const [key, count] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`${((100 * count) / total).toFixed(1).padStart(5)}%  ${key}\n`);
};
show('self time by package', packages);
show('\nself time by function', functions);
