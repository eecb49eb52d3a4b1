/**
 * Money as every report prints it — the console, HTML, Markdown, the dashboard and `plan`: the
 * currency before the amount, `$` for USD and the ISO code otherwise (`$12.35`, `EUR 0.0213`),
 * thousands grouped. Digits: `digits` when the caller fixes them (plan's monthly totals), else
 * enough for sub-cent figures (12.35, 0.0213, 0.000041). null prints as a dash.
 */
export function money(v: number | null, currency: string, digits?: number): string {
  if (v === null) return '—';
  const abs = Math.abs(v);
  const d = digits ?? (abs >= 100 ? 2 : abs >= 1 ? 3 : abs >= 0.01 ? 4 : 6);
  const s = v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  return currency === 'USD' ? `$${s}` : `${currency} ${s}`;
}
