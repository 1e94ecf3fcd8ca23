// The package's published types (package.json "exports" → dist/types/public.d.ts), built by
// tsconfig.types.json from this file and src/sandbox/types.ts alone: declarations of the whole
// server would be large and are not an interface anyone should depend on. src/sandbox/start.ts
// checks that its `startSandbox` matches the declaration below.
import type { Sandbox, SandboxOptions } from './sandbox/types.js';

export type {
  Sandbox,
  SandboxCredentials,
  SandboxDocument,
  SandboxOptions,
  SandboxUser,
} from './sandbox/types.js';

/**
 * Starts a sandbox cardbazaar (its demo data, by default in memory on a free port) and returns the
 * document `cardbazaar serve --print-credentials json` prints, plus `stop()`.
 */
export declare function startSandbox(options?: SandboxOptions): Promise<Sandbox>;
