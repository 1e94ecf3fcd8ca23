// Summarizes a V8 CPU profile of the server under test (BENCH_SERVER_NODE_ARGS="--cpu-prof
// --cpu-prof-dir=/tmp/prof" npm run bench -- --only …): the busy time by area (our source by
// directory, each dependency, node internals, garbage collection, native code such as SQLite) and
// the functions with the most self time. `node bench/profile.mjs /tmp/prof/CPU.*.cpuprofile`;
// PROFILE_AREA=kysely keeps one area only, PROFILE_TOP=40 lists more functions.
import { readFileSync } from 'node:fs';

const TOP = Number(process.env.PROFILE_TOP ?? 25);

function area(frame) {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'native (SQLite, sockets, V8)';
  if (functionName === '(idle)') return 'idle';
  if (!url) return `native: ${functionName || '(anonymous)'}`;
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dep) return dep[1];
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/')[0]}`;
  const ours = /\/(dist|src)\/(.+)$/.exec(url);
  if (ours) {
    const parts = ours[2].split('/');
    return parts.length > 1 ? `src/${parts[0]}/` : `src/${parts[0]}`;
  }
  return url;
}

for (const file of process.argv.slice(2)) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const self = new Map();
  const dt = new Map();
  // Time per sample: the gap to the next one.
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  const byArea = new Map();
  const byFunction = new Map();
  let busy = 0;
  for (const node of profile.nodes) {
    const t = dt.get(node.id) ?? 0;
    if (t === 0) continue;
    self.set(node.id, t);
    const a = area(node.callFrame);
    if (a === 'idle') continue;
    if (process.env.PROFILE_AREA && !a.includes(process.env.PROFILE_AREA)) continue;
    busy += t;
    byArea.set(a, (byArea.get(a) ?? 0) + t);
    const where = node.callFrame.url
      ? node.callFrame.url.replace(/^.*\/(node_modules|dist|src)\//, '$1/')
      : '';
    const key = `${node.callFrame.functionName || '(anonymous)'} ${where}:${node.callFrame.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + t);
  }
  const pct = (t) => `${((100 * t) / busy).toFixed(1).padStart(5)}%`;
  console.log(`\n${file}: ${(busy / 1e6).toFixed(2)} s busy`);
  console.log('  by area:');
  for (const [a, t] of [...byArea].sort((x, y) => y[1] - x[1]).slice(0, 20))
    console.log(`   ${pct(t)}  ${a}`);
  console.log(`  top ${TOP} functions (self time):`);
  for (const [f, t] of [...byFunction].sort((x, y) => y[1] - x[1]).slice(0, TOP))
    console.log(`   ${pct(t)}  ${f}`);
}
