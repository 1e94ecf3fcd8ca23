import { buildCli } from './cli/program.js';

await buildCli().parseAsync(process.argv);
