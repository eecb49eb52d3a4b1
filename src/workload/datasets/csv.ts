/**
 * A small RFC 4180 CSV reader: quoted fields, doubled quotes, CRLF. Rows come with the 1-based
 * line they start on, so problems can name `file:line`.
 */

export interface CsvRow {
  line: number;
  cells: string[];
}

export function parseCsv(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  let cells: string[] = [];
  let cell = '';
  let inQuotes = false;
  let line = 1;
  let rowLine = 1;
  let sawAny = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else inQuotes = false;
      } else {
        if (c === '\n') line++;
        cell += c;
      }
      continue;
    }
    if (c === '"') {
      inQuotes = true;
      sawAny = true;
    } else if (c === ',') {
      cells.push(cell);
      cell = '';
      sawAny = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      if (sawAny || cell !== '') {
        cells.push(cell);
        rows.push({ line: rowLine, cells });
      }
      cells = [];
      cell = '';
      sawAny = false;
      line++;
      rowLine = line;
    } else {
      cell += c;
      sawAny = true;
    }
  }
  if (sawAny || cell !== '') {
    cells.push(cell);
    rows.push({ line: rowLine, cells });
  }
  return rows;
}

/** Rows as records keyed by the header row. */
export function csvRecords(text: string): { header: string[]; records: Array<{ line: number; record: Record<string, string>; width: number }> } {
  const rows = parseCsv(text);
  const header = (rows[0]?.cells ?? []).map((h) => h.trim());
  const records = rows.slice(1).map((r) => {
    const record: Record<string, string> = {};
    header.forEach((h, i) => {
      const v = r.cells[i];
      if (v !== undefined) record[h] = v;
    });
    return { line: r.line, record, width: r.cells.length };
  });
  return { header, records };
}
