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
  history: ['errors', 'util', 'config', 'record', 'metrics', 'analysis', 'store'],
  dashboard: ['errors', 'util', 'config', 'record', 'store', 'report', 'history'],
  distributed: ['errors', 'util', 'config', 'record', 'runner'],
  // The library: the run pipeline once (measure.ts) and every session (run, sweep, sim run, analyze).
  session: ['errors', 'util', 'config', 'record', 'quality', 'workload', 'load', 'client', 'runner', 'metrics', 'analysis', 'store', 'observe', 'report', 'sweep', 'sim', 'history', 'distributed', 'export'],
  cli: null, // composes everything, but holds no pipeline: see CLI_NOT_PIPELINE
};

const ALL = Object.keys(LAYERS);

/**
 * src/cli/ parses, calls the library (src/session/) and prints: the pipeline's internals (sending a
 * load, a client, a schedule) are the library's. The worker command still drives its share itself
 * (issue 22: not yet moved), so it is the one file let through.
 */
export const CLI_NOT_PIPELINE = { folders: ['runner', 'client', 'load'], exceptions: ['src/cli/worker-command.ts'] };

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
  blocks.push({
    files: ['src/cli/**/*.ts'],
    ignores: CLI_NOT_PIPELINE.exceptions,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^\\.\\./(\\.\\./)?(${CLI_NOT_PIPELINE.folders.join('|')})/`,
              message: 'src/cli/ holds no pipeline code: call a session in src/session/ (docs/ARCHITECTURE.md §Layers; eslint.layers.js).',
            },
          ],
        },
      ],
    },
  });
  // A folder not in the table is a lint error, so the table cannot silently fall behind.
  blocks.push({
    files: ['src/*/**/*.ts'],
    ignores: ALL.map((f) => `src/${f}/**`),
    rules: { 'no-restricted-syntax': ['error', { selector: 'Program', message: 'a new src/ folder: add it to eslint.layers.js and docs/ARCHITECTURE.md §Layers' }] },
  });
  return blocks;
}
