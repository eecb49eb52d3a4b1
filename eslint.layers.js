// @ts-check
/**
 * The layering of src/ (docs/ARCHITECTURE.md §Layers), enforced by `no-restricted-imports`.
 * Each folder lists the top-level folders it may import from; anything else under src/ is an
 * error. A new folder must be added here, or lint fails for every file in it.
 */
export const LAYERS = {
  errors: [],
  record: [],
  util: [],
  config: ['errors', 'util'],
  quality: ['errors', 'util', 'config'],
  workload: ['errors', 'util', 'config', 'quality'],
  load: ['errors', 'util', 'config', 'record', 'workload'],
  client: ['errors', 'util', 'config', 'record', 'workload'],
  runner: ['errors', 'util', 'config', 'record', 'workload', 'load', 'client'],
  metrics: ['errors', 'util', 'config', 'record'],
  analysis: ['errors', 'util', 'config', 'record', 'metrics'],
  store: ['errors', 'util', 'config', 'record'],
  observe: ['errors', 'util', 'config', 'record', 'metrics'],
  report: ['errors', 'util', 'config', 'record', 'metrics', 'analysis', 'runner', 'observe', 'store', 'sweep'],
  sweep: ['errors', 'util', 'config', 'record', 'metrics', 'analysis', 'observe'],
  sim: ['errors', 'util', 'record'],
  export: ['errors', 'util', 'config', 'record', 'metrics', 'analysis', 'report', 'store'],
  history: ['errors', 'util', 'config', 'record'],
  dashboard: ['errors', 'util', 'config', 'record', 'store', 'report', 'history'],
  distributed: ['errors', 'util', 'config', 'record', 'runner'],
  session: null, // tightened once the CLI's pieces are out of it
  cli: null, // composes everything
};

const ALL = Object.keys(LAYERS);

/** One eslint config block per folder and file depth, so `../x/` is always read as src/x/. */
export function layerRules() {
  const blocks = [];
  for (const [folder, allowed] of Object.entries(LAYERS)) {
    if (allowed === null) continue;
    const forbidden = ALL.filter((f) => f !== folder && !allowed.includes(f));
    if (forbidden.length === 0) continue;
    for (let depth = 1; depth <= 4; depth++) {
      const files = [`src/${folder}/${'*/'.repeat(depth - 1)}*.ts`];
      const up = '\\.\\./'.repeat(depth);
      blocks.push({
        files,
        rules: {
          'no-restricted-imports': [
            'error',
            {
              patterns: [
                {
                  regex: `^${up}(${forbidden.join('|')})/`,
                  message: `src/${folder}/ may import only from ${allowed.length ? allowed.join(', ') : 'nothing else in src/'} (docs/ARCHITECTURE.md §Layers; eslint.layers.js).`,
                },
              ],
            },
          ],
        },
      });
    }
  }
  // A folder not in the table is a lint error, so the table cannot silently fall behind.
  blocks.push({
    files: ['src/*/**/*.ts'],
    ignores: ALL.map((f) => `src/${f}/**`),
    rules: { 'no-restricted-syntax': ['error', { selector: 'Program', message: 'a new src/ folder: add it to eslint.layers.js and docs/ARCHITECTURE.md §Layers' }] },
  });
  return blocks;
}
