// Layer boundaries (STYLE.md) are enforced here; circular imports by dpdm in `npm run lint`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Node globals that browser-side code must not touch (the browser tsconfig cannot drop Node types: apache-arrow references them). */
const NODE_GLOBALS = ['Buffer', 'process', 'require', '__dirname', '__filename', 'global', 'setImmediate'];
/** Browser globals the Node side of core/ must not touch (tsconfig.node.json has no DOM types; lint says it too). */
const DOM_GLOBALS = ['document', 'window', 'navigator', 'localStorage', 'sessionStorage', 'HTMLElement', 'location', 'history'];

const NODE_BUILTINS = [
  'fs', 'path', 'os', 'child_process', 'crypto', 'net', 'http', 'https', 'worker_threads', 'stream', 'url', 'util', 'events', 'zlib', 'buffer',
];

/** core/contract's import rule: browser-safe, no shell, and no engine folder (`engineFolder` matches a path that leaves core/contract). */
function contractImports(engineFolder) {
  return ['error', {
    paths: [
      { name: 'electron', message: 'core/contract is browser-safe.' },
      { name: 'better-sqlite3', message: 'core/contract is browser-safe.' },
      { name: 'pg', message: 'core/contract is browser-safe.' },
      { name: 'react', message: 'core/contract has no UI.' },
      ...NODE_BUILTINS.map((name) => ({ name, message: 'core/contract is browser-safe: no Node module.' })),
    ],
    patterns: [
      { group: ['node:*'], message: 'core/contract is browser-safe: no Node module.' },
      { group: ['**/renderer/**', '**/electron/**'], message: 'core/ never imports the shells.' },
      { regex: engineFolder, message: 'core/contract is the bottom layer: it imports no engine folder (only ../errors).' },
    ],
  }];
}

export default tseslint.config(
  { ignores: ['.dependency-cruiser.cjs', 'node_modules/**', 'out/**', 'dist/**', 'bench/results/**', 'test-results/**', 'coverage/**', 'bench/.scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', performance: 'readonly', queueMicrotask: 'readonly', structuredClone: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
  },
  {
    // No default exports in source (config files at the top level need them).
    files: ['core/**', 'electron/**', 'renderer/**', 'test/**', 'e2e/**', 'bench/**'],
    rules: {
      'no-restricted-exports': ['error', { restrictDefaultExports: { direct: true, named: true, defaultFrom: true, namedFrom: true, namespaceFrom: true } }],
    },
  },
  {
    // The engine is a plain Node library: no Electron, no UI; database drivers only in adapter files.
    files: ['core/**/*.ts'],
    ignores: ['core/**/sqlite-*.ts', 'core/**/postgres-*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'electron', message: 'core/ never imports electron.' },
          { name: 'better-sqlite3', message: 'Only sqlite-*.ts adapter files import the SQLite driver.' },
          { name: 'pg', message: 'Only postgres-*.ts adapter files import pg.' },
          { name: 'react', message: 'core/ has no UI.' },
        ],
        patterns: [{ group: ['**/renderer/**', '**/electron/**'], message: 'core/ never imports the shells.' }],
      }],
    },
  },
  {
    // The Node side of core/ runs with no DOM (core/contract is shared with the browser and may be used there).
    files: ['core/**/*.ts'],
    ignores: ['core/contract/**'],
    rules: {
      'no-restricted-globals': ['error', ...DOM_GLOBALS.map((name) => ({ name, message: 'Node-side core/ has no DOM.' }))],
    },
  },
  {
    files: ['core/**/sqlite-*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: 'core/ never imports electron.' }, { name: 'pg', message: 'Only postgres-*.ts files import pg.' }],
        patterns: [{ group: ['**/renderer/**', '**/electron/**'], message: 'core/ never imports the shells.' }],
      }],
    },
  },
  {
    files: ['core/**/postgres-*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: 'core/ never imports electron.' }, { name: 'better-sqlite3', message: 'Only sqlite-*.ts files import better-sqlite3.' }],
        patterns: [{ group: ['**/renderer/**', '**/electron/**'], message: 'core/ never imports the shells.' }],
      }],
    },
  },
  {
    // core/contract is browser-safe: no Node module or global, no engine folder (it is the bottom layer:
    // everything imports it, it imports only zod, apache-arrow and the closed error set in core/errors.ts).
    files: ['core/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': contractImports('^\\.\\./(?!errors$)'),
      'no-restricted-globals': ['error', ...NODE_GLOBALS.map((name) => ({ name, message: 'core/contract is browser-safe: no Node global.' }))],
    },
  },
  {
    // core/contract/ops/<domain>.ts: the same rule one folder down (they import core/contract's modules, no engine folder).
    files: ['core/contract/ops/**/*.ts'],
    rules: { 'no-restricted-imports': contractImports('^\\.\\./\\.\\./(?!errors$)') },
  },
  {
    // The CLI goes through the dispatcher: commands parse, dispatch and format; no engine module (the
    // folder-level twin is .dependency-cruiser.cjs `cli-commands-only-through-the-dispatcher`).
    files: ['core/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'electron', message: 'core/ never imports electron.' },
          { name: 'better-sqlite3', message: 'CLI commands reach storage only through the dispatcher.' },
          { name: 'pg', message: 'CLI commands reach storage only through the dispatcher.' },
        ],
        patterns: [
          { group: ['**/renderer/**', '**/electron/**'], message: 'core/ never imports the shells.' },
          {
            regex: '^\\.\\./(checkpoints|revert|diff|chain|views|project|participants|canonical|demo|langgraph)(/|$)',
            message: 'A CLI command parses, calls dispatch(op, request) and formats: import core/contract and core/api only.',
          },
        ],
      }],
    },
  },
  {
    // The renderer runs with no Node: only the shared contract and UI libraries.
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'electron', message: 'The renderer talks only to the preload bridge.' },
          { name: 'better-sqlite3', message: 'No Node in the renderer.' },
          { name: 'pg', message: 'No Node in the renderer.' },
          ...NODE_BUILTINS.map((name) => ({ name, message: 'No Node in the renderer.' })),
        ],
        patterns: [
          { group: ['node:*'], message: 'No Node in the renderer.' },
          // A regex: anything under core/ except the browser-safe contract folder.
          { regex: '(^|/)core/(?!contract/)', message: 'The renderer imports only the shared contract (core/contract/).' },
          { group: ['**/electron/**'], message: 'The renderer never imports the main process.' },
        ],
      }],
      'no-restricted-globals': ['error', ...NODE_GLOBALS.map((name) => ({ name, message: 'No Node in the renderer.' }))],
    },
  },
  {
    // Raw IPC only inside electron/ipc/.
    files: ['electron/**/*.ts'],
    ignores: ['electron/ipc/**'],
    rules: {
      'no-restricted-syntax': ['error',
        { selector: "ImportSpecifier[imported.name='ipcMain']", message: 'Use electron/ipc/ wrappers.' },
        { selector: "ImportSpecifier[imported.name='ipcRenderer']", message: 'Use electron/ipc/ wrappers.' },
      ],
    },
  },
);
