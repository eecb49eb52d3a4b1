/**
 * A minimal Prometheus text-format (0.0.4) writer: counters, gauges and histograms with one
 * fixed label set plus optional extra labels. Output mirrors Python prometheus_client, which
 * vLLM uses: counters are named `…_total` in HELP/TYPE and samples; histograms write
 * cumulative `_bucket{le=…}` lines, then `_count` and `_sum`.
 */
export type Labels = Record<string, string>;

function fmtLabels(base: string, extra?: Labels): string {
  let s = base;
  if (extra) for (const k of Object.keys(extra)) s += `${s ? ',' : ''}${k}="${String(extra[k]).replace(/["\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\' + c))}"`;
  return s;
}

function num(x: number): string {
  if (x === Infinity) return '+Inf';
  return Number.isInteger(x) ? x.toFixed(1) : String(x);
}

export class Histogram {
  readonly counts: Float64Array;
  count = 0;
  sum = 0;

  constructor(
    readonly name: string,
    readonly help: string,
    /** Upper bounds in seconds (or units), ascending; +Inf is implicit. */
    readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > (b[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.count++;
    this.sum += v;
  }

  reset(): void {
    this.counts.fill(0);
    this.count = 0;
    this.sum = 0;
  }

  render(labels: string): string {
    let out = `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} histogram\n`;
    let cum = 0;
    for (let i = 0; i <= this.bounds.length; i++) {
      cum += this.counts[i] as number;
      const le = i < this.bounds.length ? num(this.bounds[i] as number) : '+Inf';
      out += `${this.name}_bucket{${fmtLabels(labels, { le })}} ${num(cum)}\n`;
    }
    out += `${this.name}_count{${labels}} ${num(this.count)}\n${this.name}_sum{${labels}} ${num(this.sum)}\n`;
    return out;
  }
}

/** One sample family (gauge or counter) written from current values. */
export function family(name: string, type: 'gauge' | 'counter', help: string, samples: { labels: string; value: number }[]): string {
  let out = `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`;
  for (const s of samples) out += `${name}${s.labels ? `{${s.labels}}` : ''} ${num(s.value)}\n`;
  return out;
}

export { fmtLabels };
