import { OffsetClock } from '../../clock.js';
import type { EventDispatcher } from '../events.js';
import { CLOCK_OFFSET } from '../../store/faults.js';
import { getSetting, putSetting } from '../../store/settings.js';
import {
  type MarketContext,
  type MarketRunSummary,
  MARKET_STATE_SETTING,
  runMarket,
  type SettableClock,
} from './engine.js';
import type { Scenario } from './scenario.js';

/**
 * The market of a running server (`serve --market NAME`): the same engine as `market run`, paced
 * so that `speed` marketplace seconds pass per real second, beside the requests. It moves the
 * sandbox clock (the shared offset, so the CLI and other processes see the market's time), keeps
 * any jump `clock advance` made meanwhile, and obeys `market pause|resume|stop` between steps.
 * It never holds the event loop for more than one action: it yields a macrotask before each, so a
 * request waits for at most one action (a step of 1,000 traders is a dozen); the server's periodic
 * outbox pass is held during a step, which delivers its own events at its end as in `market run`.
 */
export interface ServerMarket {
  done: Promise<MarketRunSummary | undefined>;
  stop(): Promise<void>;
}

/** One turn of the event loop: the requests that arrived meanwhile are read before the next action. */
const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

export function startServerMarket(
  ctx: MarketContext & { events: Pick<EventDispatcher, 'deliverPending' | 'hold'> },
  options: { scenario: Scenario; seed: string; days: number; speed: number },
  onError: (err: unknown) => void,
): ServerMarket {
  const clock = ctx.clock;
  if (!(clock instanceof OffsetClock)) throw new Error('the server market needs the sandbox clock');
  const db = ctx.database.db;
  let written = clock.offset;
  let jumped = 0;
  const marketClock: SettableClock = {
    now: () => clock.now(),
    async set(ms: number) {
      // Another process (`clock advance`) moved the shared offset since the market last wrote it:
      // the market goes on from there instead of winding the clock back.
      const stored = Number((await getSetting(db, CLOCK_OFFSET)) ?? 0);
      jumped += stored - written;
      const offset = ms + jumped - Date.now();
      clock.setOffset(offset);
      await putSetting(db, CLOCK_OFFSET, String(offset));
      written = offset;
    },
  };
  let stopping = false;
  const sleep = async (ms: number) => {
    const until = Date.now() + ms;
    while (!stopping && Date.now() < until)
      await new Promise((r) => setTimeout(r, Math.min(100, until - Date.now())));
  };
  let last = Date.now();
  const done = runMarket(ctx, marketClock, {
    ...options,
    between: nextMacrotask,
    holdDeliveries: () => ctx.events.hold(),
    control: async () => {
      if (stopping) return 'stop';
      const text = await getSetting(db, MARKET_STATE_SETTING);
      const status = text ? (JSON.parse(text) as { status: string }).status : 'running';
      return status === 'paused' ? 'pause' : status === 'stopped' ? 'stop' : 'run';
    },
    pace: async (stepMs) => {
      // A step's work counts towards its time: a slow step is followed by a shorter wait.
      const wait = stepMs / options.speed - (Date.now() - last);
      if (wait > 0) await sleep(wait);
      last = Date.now();
    },
  }).catch((err: unknown) => {
    onError(err);
    return undefined;
  });
  return {
    done,
    async stop() {
      stopping = true;
      await done;
    },
  };
}
