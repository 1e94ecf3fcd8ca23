import { Rng } from '../../seed/prng.js';

/**
 * One random stream of the market: the seeded generator the demo data uses (sfc32 through a string
 * hash), keyed by the master seed and a label (a trader's name, `order`, `value`), so each trader
 * draws from its own stream and adding a trader never shifts another's draws. It counts its draws:
 * the count is the "seed position" the market log records with each action, which says exactly
 * where in the run an action was decided.
 */
export class Stream {
  private readonly rng: Rng;
  private drawn = 0;

  constructor(seed: string, label: string) {
    this.rng = new Rng(`${seed}/${label}`);
  }

  get position(): number {
    return this.drawn;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.drawn++;
    return this.rng.next();
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** An integer from `min` to `max`, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A standard normal draw (Box–Muller; two uniforms). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** A new array in an order drawn from this stream (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  /** `k` distinct items drawn from `items` (all of them when `k` is at least their number). */
  sample<T>(items: readonly T[], k: number): T[] {
    return this.shuffle(items).slice(0, Math.min(k, items.length));
  }
}
