/** A plain-text table for the terminal: first column left-aligned, the others right-aligned. */
export function textTable(header: string[], rows: string[][], opts: { leftColumns?: number } = {}): string {
  const left = opts.leftColumns ?? 1;
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < left ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
