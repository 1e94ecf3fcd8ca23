// The package's programmatic API (`import { startSandbox } from 'cardbazaar'`; docs/testing-your-client.md, "Testing
// your client against cardbazaar"). Its published types are src/public.ts.
export { startSandbox } from './sandbox/start.js';
export type {
  Sandbox,
  SandboxCredentials,
  SandboxDocument,
  SandboxOptions,
  SandboxUser,
} from './sandbox/types.js';
