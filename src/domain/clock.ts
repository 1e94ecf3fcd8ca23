import { type Clock, OffsetClock, parseDuration } from '../clock.js';
import type { Config } from '../config.js';
import { ApiError, badRequest } from '../errors.js';
import { formatTimestamp } from '../format.js';
import type { Database } from '../store/db.js';
import { CLOCK_OFFSET } from '../store/faults.js';
import { getSetting, putSetting } from '../store/settings.js';

/**
 * The sandbox's marketplace clock (waiting periods, reservation expiry, shipping times read it):
 * real time plus an offset kept in the database, so every process on it follows a change (a server
 * at its next request, src/http/control.ts). One set of functions for `cardbazaar clock` and the
 * control API's `/_cardbazaar/clock`. OAuth timestamps are checked against real time regardless.
 */

export interface ClockContext {
  config: Config;
  database: Database;
  /** The marketplace clock of this process: moved at once, so this process's next answer reads it. */
  clock: Clock;
  /** Real time, which the offset is counted from. */
  wallClock: Clock;
}

/** The clock as `clock show` and `GET /_cardbazaar/clock` give it. */
export interface ClockView {
  /** Marketplace time, ISO 8601 with offset. */
  now: string;
  /** How far the marketplace clock is ahead of real time. */
  offsetMs: number;
}

/** The furthest the clock may be moved ahead: far enough for any waiting period, short of what dates can hold. */
const MAX_OFFSET_MS = 100 * 365 * 86_400_000;

function refuseInProduction(ctx: ClockContext): void {
  if (ctx.config.mode === 'production') {
    throw new ApiError(403, 'The clock cannot be moved in production.');
  }
}

async function readOffset(ctx: ClockContext): Promise<number> {
  return Number((await getSetting(ctx.database.db, CLOCK_OFFSET)) ?? 0);
}

function view(ctx: ClockContext, offsetMs: number): ClockView {
  return { now: formatTimestamp(ctx.wallClock.now() + offsetMs), offsetMs };
}

/** Stores the new offset and moves this process's clock with it (other processes follow from the row). */
async function putOffset(ctx: ClockContext, offsetMs: number): Promise<ClockView> {
  if (offsetMs > MAX_OFFSET_MS) {
    throw badRequest('The marketplace clock may be at most 100 years ahead of real time.', { field: 'by' });
  }
  await putSetting(ctx.database.db, CLOCK_OFFSET, String(offsetMs));
  if (ctx.clock instanceof OffsetClock) ctx.clock.setOffset(offsetMs);
  return view(ctx, offsetMs);
}

export async function readClock(ctx: ClockContext): Promise<ClockView> {
  return view(ctx, await readOffset(ctx));
}

/**
 * `by`: a duration (`8d`, `1h30m`) or whole milliseconds. The clock only moves forward: what already
 * happened (an order paid, a reservation made) stays in the past.
 */
export async function advanceClock(ctx: ClockContext, by: unknown): Promise<ClockView> {
  refuseInProduction(ctx);
  let ms: number;
  if (typeof by === 'number') {
    ms = by;
  } else if (typeof by === 'string' && /^\d{1,15}$/.test(by.trim())) {
    ms = Number(by);
  } else if (typeof by === 'string') {
    try {
      ms = parseDuration(by);
    } catch (err) {
      throw badRequest(`"by" is ${(err as Error).message}.`, { field: 'by' });
    }
  } else {
    throw badRequest('"by" is a duration such as "8d" or "1h30m", or whole milliseconds.', { field: 'by' });
  }
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw badRequest('"by" moves the clock forward: whole milliseconds, 0 or more.', { field: 'by' });
  }
  return ctx.database.transaction(async (tx) => {
    const offset = Number((await getSetting(tx, CLOCK_OFFSET)) ?? 0);
    return putOffset({ ...ctx, database: { ...ctx.database, db: tx } }, offset + ms);
  });
}

/**
 * Puts the marketplace clock at `to` (ISO 8601). Not before real time: the marketplace clock runs
 * ahead of real time or with it, as `advance` and `reset` leave it.
 */
export async function setClock(ctx: ClockContext, to: unknown): Promise<ClockView> {
  refuseInProduction(ctx);
  const at =
    typeof to === 'string' && /^\d{4}-\d\d-\d\d(?:T[\d:.]+(?:Z|[+-]\d\d:?\d\d)?)?$/.test(to.trim())
      ? Date.parse(to.trim())
      : NaN;
  if (!Number.isFinite(at)) {
    throw badRequest('"to" is a time in ISO 8601, e.g. 2026-12-24T18:00:00+01:00.', { field: 'to' });
  }
  const offset = at - ctx.wallClock.now();
  if (offset < 0) {
    throw badRequest(
      `"to" is before real time (${formatTimestamp(ctx.wallClock.now())}): the marketplace clock only runs ahead of it.`,
      { field: 'to' },
    );
  }
  return putOffset(ctx, offset);
}

/** Back to real time. */
export async function resetClock(ctx: ClockContext): Promise<ClockView> {
  refuseInProduction(ctx);
  return putOffset(ctx, 0);
}
