/**
 * mulberry32: a small, fast 32-bit generator whose sequence a seed fixes, for what must come out the
 * same every time (a fault's hits at a given seed, a drawn card face) and needs no cryptographic
 * strength. Numbers in [0, 1).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
