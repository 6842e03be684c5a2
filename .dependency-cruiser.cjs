// Layers as folders (ARCHITECTURE.md): the folder graph of core/ is acyclic, and
// core/contract is its bottom. `npm run lint` runs this check.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment: 'A folder of core/ (one concept) must not depend on itself through another folder: move the piece to the layer it belongs to.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^core/' },
      to: { circular: true },
    },
    {
      name: 'contract-is-the-bottom-layer',
      comment: 'core/contract is browser-safe and imports no engine folder (only zod, apache-arrow and core/errors.ts).',
      severity: 'error',
      from: { path: '^core/contract/' },
      to: { path: '^core/(?!contract/|errors\\.ts$)' },
    },
    {
      name: 'cli-commands-only-through-the-dispatcher',
      comment:
        'A CLI command file parses arguments, dispatches and formats: it imports core/contract, core/errors.ts and core/cli only ' +
        '(the dispatcher through ./session and ./lazy-engine), never an engine folder (checkpoints/, revert/, diff/, chain/, project/, …), statically or lazily.',
      severity: 'error',
      from: { path: '^core/cli/[^/]+-command\\.ts$' },
      to: { path: '^core/(?!contract/|cli/|errors\\.ts$)' },
    },
    {
      name: 'browser-side-has-no-node',
      comment: 'The renderer and core/contract run in a browser: no Node built-in module.',
      severity: 'error',
      from: { path: '^(renderer|core/contract)/' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(test|e2e|bench|out|scripts)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'] },
  },
};
