import { buildCli } from '../src/cli/program.js';

export interface CliResult {
  /** What the command printed with console.log, a line per call. */
  out: string;
  /** console.error lines and anything written to stderr (progress bars), as written. */
  err: string;
  code: number;
}

/**
 * Runs `cardbazaar …` in this process, as a user would from a shell, and returns what it printed
 * and its exit code. In-process, so the command sees a test server's database file while the test
 * server has it open.
 */
export async function runCli(...args: string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const log = console.log;
  const error = console.error;
  const write = process.stderr.write.bind(process.stderr);
  console.log = (...a: unknown[]) => out.push(a.join(' '));
  console.error = (...a: unknown[]) => err.push(`${a.join(' ')}\n`);
  process.stderr.write = ((chunk: string) => {
    err.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  const previous = process.exitCode;
  process.exitCode = undefined;
  try {
    await buildCli()
      .exitOverride()
      .parseAsync(['node', 'cardbazaar', ...args]);
    return { out: out.join('\n'), err: err.join(''), code: Number(process.exitCode ?? 0) };
  } finally {
    console.log = log;
    console.error = error;
    process.stderr.write = write;
    process.exitCode = previous;
  }
}
