#!/usr/bin/env node
// `npm start` builds dist/ only when a source changed since the last build, so a second start
// listens in about a second instead of waiting for tsc (18 s for a full build on a small machine;
// even an incremental tsc with nothing to do reads every file for 2 s). The first start, or any
// start after an edit, an added or a deleted file under src/, or a changed tsconfig, still builds
// (incrementally: tsc keeps dist/.tsbuildinfo).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STAMP = 'dist/.tsbuildinfo';
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

/** The newest modification time under a path (a directory's own time changes when a file is added or removed). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  let t = st.mtimeMs;
  if (st.isDirectory()) for (const name of readdirSync(path)) t = Math.max(t, newest(join(path, name)));
  return t;
}

const newestInput = (root) => Math.max(...INPUTS.map((p) => newest(join(root, p))));

/** Whether `root`'s dist/ is missing or older than any of its sources. */
export function needsBuild(root) {
  const stamp = join(root, STAMP);
  if (!existsSync(stamp) || !existsSync(join(root, 'dist', 'cli.js'))) return true;
  return newestInput(root) > statSync(stamp).mtimeMs;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = process.cwd();
  if (!needsBuild(root)) process.exit(0);
  // Taken before tsc reads anything: an edit made while it runs is newer and builds next time.
  const covered = Math.max(Date.now(), newestInput(root));
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  // tsc leaves its build info alone when nothing needed emitting: mark the build as covering every
  // source it saw (a file dated in the future, from an archive or another clock, included).
  const done = new Date(Math.ceil(covered)); // file times have sub-millisecond parts
  utimesSync(join(root, STAMP), done, done);
}
