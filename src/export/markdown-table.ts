/** Markdown building blocks shared by the export's sections: escaped text and pipe tables. */

/** Text safe in a Markdown table cell or paragraph: no markup, no cell breaks, one line. */
export function mdText(value: unknown): string {
  return String(value)
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|#!])/g, '\\$1');
}

/** A pipe table; every column after the first is right-aligned (figures). */
export function mdTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}
