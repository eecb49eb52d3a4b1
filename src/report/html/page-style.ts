/** The report page's stylesheet (inline: the file must open offline). */
export const PAGE_CSS = `
:root { --fg: #1d232b; --muted: #5b6570; --line: #dde2e7; --bg: #fff; --panel: #f6f8fa; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 20px 28px 8px; border-bottom: 1px solid var(--line); background: var(--panel); }
h1 { font-size: 20px; margin: 0 0 10px; overflow-wrap: anywhere; }
h2 { font-size: 17px; margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 14px; margin: 16px 0 6px; }
.facts { display: flex; flex-wrap: wrap; gap: 4px 22px; margin: 0 0 10px; }
.facts div { display: flex; gap: 6px; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
nav { display: flex; flex-wrap: wrap; gap: 4px 16px; padding: 6px 0; }
nav a { color: #0969da; text-decoration: none; }
main { padding: 0 28px 28px; max-width: 1320px; }
.verdict { padding: 10px 14px; border-radius: 6px; margin: 12px 0; border: 1px solid var(--line); }
.verdict.ok { border-color: var(--ok); background: #dafbe1; }
.verdict.bad { border-color: var(--bad); background: #ffebe9; }
.verdict.unknown { background: var(--panel); }
.verdict ul { margin: 6px 0 0; padding-left: 20px; }
.tables { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
.table-box { max-width: 100%; overflow-x: auto; margin: 6px 0 12px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 3px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
thead th { background: var(--panel); }
table.num td, td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th { white-space: nowrap; }
td { overflow-wrap: anywhere; max-width: 640px; }
.num { white-space: nowrap; font-variant-numeric: tabular-nums; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(600px, 100%), 1fr)); gap: 12px 24px; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(200px, 100%), 1fr)); gap: 10px; margin: 12px 0; }
.figure { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; border-left-width: 4px; }
.figure.ok { border-left-color: var(--ok); }
.figure.bad { border-left-color: var(--bad); background: #fff6f5; }
.fig-label { color: var(--muted); font-size: 12.5px; }
.fig-value { font-size: 20px; font-weight: 600; }
.fig-slo { font-size: 12px; color: var(--muted); }
.figure.bad .fig-slo { color: var(--bad); }
ul.gates { list-style: none; padding-left: 0; }
.gate-ok { color: var(--ok); font-weight: 700; }
.gate-bad { color: var(--bad); font-weight: 700; }
.gate-na { color: var(--muted); }
.bottleneck { padding: 8px 12px; border-radius: 6px; background: #fff8c5; border: 1px solid #d4a72c; }
.bottleneck.note { background: var(--panel); border-color: var(--line); }
figure.chart.wide { grid-column: 1 / -1; }
figure.chart { margin: 0; padding: 8px 10px; border: 1px solid var(--line); border-radius: 6px; min-width: 0; }
figcaption { color: var(--muted); font-size: 12.5px; margin-bottom: 4px; }
figcaption strong { color: var(--fg); font-size: 13.5px; margin-right: 4px; }
.chart-box { min-height: 240px; overflow-x: auto; }
.note { color: var(--muted); }
pre { background: var(--panel); padding: 10px 12px; border-radius: 6px; overflow: auto; font-size: 12px; max-height: 520px; }
footer { padding: 14px 28px; color: var(--muted); border-top: 1px solid var(--line); font-size: 12px; }
@media (max-width: 600px) {
  header { padding: 12px 12px 6px; }
  main { padding: 0 12px 20px; }
  footer { padding: 12px; }
  .tables { display: block; }
}
`;
