/**
 * --search: the highest load (request rate or concurrency) whose SLOs hold, assuming that
 * holding is monotone in load (it holds below some load and fails above it).
 *
 * 1. Bracket: probe `start`; while it passes, double (up to `max`); while it fails, halve (down
 *    to `min`). This finds lo (highest passing) and hi (lowest failing) with hi ≤ 2·lo.
 * 2. Bisect: probe (lo + hi) / 2 and keep the half holding the boundary, until
 *    (hi − lo) / lo ≤ precision (integers: or hi − lo ≤ 1).
 * Every probe's outcome is kept: a load asked for twice is answered from the first run.
 */

export interface SearchOptions {
  start: number;
  /** Relative width of the final bracket, e.g. 0.05. */
  precision: number;
  /** Bounds of the search: below min nothing passes; at max it stops with max passing. */
  min: number;
  max: number;
  /** Concurrency: integer loads. */
  integer: boolean;
}

export interface SearchProbe {
  load: number;
  pass: boolean;
}

export interface SearchOutcome {
  /** Highest load that passed; null when even `min` failed. */
  found: number | null;
  /** [lo, hi]: lo passed, hi failed; hi null when `max` passed, lo null when `min` failed. */
  bracket: [number | null, number | null];
  /** Why the search ended. */
  reason: string;
}

export class LoadSearch {
  private lo: number | null = null;
  private hi: number | null = null;
  private readonly seen = new Map<number, boolean>();
  private done: SearchOutcome | null = null;

  constructor(private readonly opts: SearchOptions) {
    if (!(opts.start > 0 && opts.min > 0 && opts.max >= opts.min && opts.precision > 0)) throw new RangeError('search: bad options');
  }

  /** The next load to probe, or null when the search is over (see `outcome`). */
  next(): number | null {
    // A load already probed is answered from `seen`. Each such answer that changes anything moves
    // lo up or hi down to a recorded load, so there are at most seen.size of them before a new
    // load or the end. A candidate that lands on a probed load without moving the bracket (a
    // rounding onto lo or hi) would repeat for ever: past that bound it is an internal error.
    const limit = this.seen.size + 1;
    for (let step = 0; step < limit; step++) {
      const load = this.candidate();
      if (load === null) return null;
      const known = this.seen.get(load);
      if (known === undefined) return load;
      this.record(load, known);
    }
    throw new Error(
      `LoadSearch.next(): the bracket [${this.lo}, ${this.hi}] stopped moving after ${limit} steps over loads already probed (next candidate ${this.candidate()}; options ${JSON.stringify(this.opts)})`,
    );
  }

  /** Records a probe's outcome. */
  record(load: number, pass: boolean): void {
    this.seen.set(load, pass);
    if (pass && (this.lo === null || load > this.lo)) this.lo = load;
    if (!pass && (this.hi === null || load < this.hi)) this.hi = load;
  }

  get outcome(): SearchOutcome {
    if (this.done === null) throw new Error('search: not finished');
    return this.done;
  }

  private finish(reason: string): null {
    this.done = { found: this.lo, bracket: [this.lo, this.hi], reason };
    return null;
  }

  private candidate(): number | null {
    const { lo, hi } = this;
    const o = this.opts;
    const round = (v: number) => (o.integer ? Math.round(v) : Number(v.toPrecision(6)));
    if (lo === null && hi === null) return round(Math.min(Math.max(o.start, o.min), o.max));
    if (hi === null) {
      if (lo! >= o.max) return this.finish(`the SLOs hold at the search limit ${o.max}`);
      return round(Math.min(lo! * 2, o.max));
    }
    if (lo === null) {
      if (hi <= o.min) return this.finish(`the SLOs fail even at the lowest load tried (${o.min})`);
      return round(Math.max(hi / 2, o.min));
    }
    if ((hi - lo) / lo <= o.precision || (o.integer && hi - lo <= 1)) {
      return this.finish(`bracket [${lo}, ${hi}] is within the precision (${Number((o.precision * 100).toPrecision(3))}%${o.integer ? ' or ±1' : ''})`);
    }
    const mid = o.integer ? Math.floor((lo + hi) / 2) : Number(((lo + hi) / 2).toPrecision(6));
    if (mid <= lo || mid >= hi) return this.finish(`bracket [${lo}, ${hi}] cannot be split further`);
    return mid;
  }
}
