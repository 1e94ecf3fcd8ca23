import type { Progress } from '../seed/progress.js';

/**
 * A progress bar on stderr for the long commands (`seed --demo --scale N`, `catalog import`): one
 * line redrawn in place on a terminal, a line per quarter otherwise (logs, CI), so output stays
 * readable either way.
 */
export function progressBar(stream: NodeJS.WriteStream = process.stderr): Progress {
  let label = '';
  let total = 0;
  let done = 0;
  let started = 0;
  let lastDraw = 0;
  let lastQuarter = -1;
  const tty = stream.isTTY === true;

  const line = () => {
    const fraction = total > 0 ? Math.min(1, done / total) : 1;
    const width = 30;
    const filled = Math.round(fraction * width);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    return `${label.padEnd(12)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%  ${seconds}s`;
  };
  const draw = (force: boolean) => {
    if (tty) {
      const now = Date.now();
      if (!force && now - lastDraw < 100) return;
      lastDraw = now;
      stream.write(`\r${line()}`);
      return;
    }
    const quarter = total > 0 ? Math.floor((4 * Math.min(done, total)) / total) : 4;
    if (force || quarter > lastQuarter) {
      lastQuarter = quarter;
      stream.write(`${line()}\n`);
    }
  };

  return {
    start(newLabel, newTotal) {
      label = newLabel;
      total = newTotal;
      done = 0;
      started = Date.now();
      lastQuarter = -1;
      draw(true);
    },
    advance(amount) {
      done += amount;
      draw(false);
    },
    finish() {
      done = Math.max(done, total);
      if (tty) stream.write(`\r${line()}\n`);
      else if (lastQuarter < 4) draw(true);
    },
  };
}
