/**
 * The one source of marketplace time. Every rule that depends on time reads a Clock, so tests and
 * the sandbox can move it (`cardbazaar clock advance 8d`) while production uses the real one.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * Real time plus an offset. The sandbox keeps the offset in the database so that the CLI (another
 * process) can move the server's clock; the server refreshes it with `setOffset`.
 */
export class OffsetClock implements Clock {
  constructor(
    private offsetMs = 0,
    private readonly base: Clock = systemClock,
  ) {}
  now(): number {
    return this.base.now() + this.offsetMs;
  }
  setOffset(ms: number): void {
    this.offsetMs = ms;
  }
  get offset(): number {
    return this.offsetMs;
  }
}

/** A clock that only moves when told to: for tests. */
export class ManualClock implements Clock {
  constructor(private t = Date.UTC(2026, 10, 21, 12, 0, 0)) {}
  now(): number {
    return this.t;
  }
  set(ms: number): void {
    this.t = ms;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Parses durations such as `8d`, `90m`, `1h30m`, `2w`, `45s`. */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (!/^(\d+(ms|s|m|h|d|w))+$/.test(s)) {
    throw new Error(`not a duration: "${text}" (use e.g. 8d, 12h, 90m, 1h30m)`);
  }
  let total = 0;
  for (const [, n, unit] of s.matchAll(/(\d+)(ms|s|m|h|d|w)/g)) {
    total += Number(n) * UNITS[unit as string]!;
  }
  return total;
}
