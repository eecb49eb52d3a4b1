/**
 * The gates as Markdown (failed first), for pull-request summaries and GitHub's job summary:
 * when GITHUB_STEP_SUMMARY names a file, a command appends its Markdown summary, gates first.
 */
import { appendFileSync } from 'node:fs';
import { failedFirst, type Gate } from '../analysis/gates.js';

const md = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A table of every gate, failed first; a line saying there were none when the list is empty. */
export function gatesMarkdown(gates: readonly Gate[]): string {
  if (gates.length === 0) return '**Gates:** none asked for.';
  const failed = gates.filter((g) => !g.pass).length;
  const rows = failedFirst(gates).map((g) => `| ${g.pass ? 'pass' : '**FAIL**'} | ${md(g.name)} | ${md(g.measured ?? '—')} | ${md(g.threshold ?? '—')} | ${md(g.pass ? '' : g.message)} |`);
  return [`**Gates: ${failed === 0 ? `all ${gates.length} passed` : `${failed} of ${gates.length} FAILED`}**`, '', '| gate | what | measured | threshold | why |', '|---|---|---:|---|---|', ...rows].join('\n');
}

/**
 * Appends `markdown` to the file GITHUB_STEP_SUMMARY names (GitHub Actions shows it on the job's
 * page). Returns the path written, or null when the variable is unset. A failure to write is a
 * warning for the caller to print, not a failed command: the gates' exit code stands.
 */
export function appendStepSummary(markdown: string, env: NodeJS.ProcessEnv = process.env): { path: string | null; error: string | null } {
  const path = env.GITHUB_STEP_SUMMARY;
  if (!path) return { path: null, error: null };
  try {
    appendFileSync(path, `${markdown.trimEnd()}\n\n`);
    return { path, error: null };
  } catch (err) {
    return { path, error: `GITHUB_STEP_SUMMARY ${path}: cannot append (${(err as NodeJS.ErrnoException).code ?? String(err)})` };
  }
}
