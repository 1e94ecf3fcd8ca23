/**
 * How long-running loads (demo data, imports) report progress: a phase with a known amount of work,
 * advanced as parts of it are done. The CLI draws a bar; the server and tests stay quiet.
 */
export interface Progress {
  start(label: string, total: number): void;
  advance(amount: number): void;
  finish(): void;
}

export const silentProgress: Progress = {
  start() {},
  advance() {},
  finish() {},
};
