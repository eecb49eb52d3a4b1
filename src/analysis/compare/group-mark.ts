/**
 * What stands between the groups of a grouped compare (`compare A1 A2 -- B1 B2`) once the CLI has
 * read it: the argument parser drops a bare `--`, so the CLI puts this in its place. A NUL cannot
 * come from a shell, so no path is ever taken for it. On its own so the CLI's entry imports
 * nothing else of compare up front.
 */
export const GROUP_MARK = '\u0000--';
