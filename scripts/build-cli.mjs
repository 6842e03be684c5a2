// The `gf` CLI as built JavaScript: esbuild bundles core/cli/main.ts (and the
// entries `npm start` uses: core/cli/browser-host.ts for browser mode and
// core/project/index.ts to check a --project) into
// dist/cli/, split into chunks so a command loads only what it imports.
//
// dist/cli/current.json names the entry files of the latest build and records
// every input it was built from (project sources by size, mtime and SHA-256;
// packages by their package.json). `ensureCliBundle()` checks that record on
// every start (stat only, hashing just the files whose mtime moved) and
// rebuilds a stale bundle before it is used: a stale bundle is never run.
//
// `node scripts/build-cli.mjs` builds unconditionally (the `prepare` step of
// `npm install`); `--if-stale` builds only when the record says so.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The package root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the bundle lives (`GF_CLI_DIST` moves it, for tests that must not touch the shared one). */
export const CLI_DIST = process.env.GF_CLI_DIST !== undefined && process.env.GF_CLI_DIST !== '' ? resolve(process.env.GF_CLI_DIST) : join(ROOT, 'dist', 'cli');
const RECORD = join(CLI_DIST, 'current.json');
const RECORD_VERSION = 1;

/** The bundle's entry points (name → source). */
const ENTRIES = { gf: 'core/cli/main.ts', serve: 'core/cli/browser-host.ts', project: 'core/project/index.ts' };

/**
 * Packages loaded from node_modules at run time instead of being bundled:
 * native addons, optional native drivers, and packages whose loaders resolve
 * files relative to themselves.
 */
const EXTERNAL = ['better-sqlite3', '@duckdb/node-api', 'pg-native', 'electron', '@langchain/*', 'langchain'];

/** Files outside the bundle's module graph that still shape it. */
const EXTRA_INPUTS = ['scripts/build-cli.mjs', 'package.json', 'tsconfig.json'];

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

function fileEntry(rel) {
  const abs = join(ROOT, rel);
  const st = statSync(abs);
  return { path: rel, size: st.size, mtimeMs: st.mtimeMs, sha256: sha256(readFileSync(abs)) };
}

/** The package.json of the package a node_modules path belongs to. */
function packageJsonOf(rel) {
  const parts = rel.split('/');
  const at = parts.lastIndexOf('node_modules');
  const nameParts = parts[at + 1]?.startsWith('@') ? 2 : 1;
  return [...parts.slice(0, at + 1 + nameParts), 'package.json'].join('/');
}

/** Input records of one build, from esbuild's metafile (paths relative to ROOT, forward slashes). */
function inputsOf(metafile) {
  const files = new Set(EXTRA_INPUTS);
  for (const input of Object.keys(metafile.inputs)) {
    const rel = relative(ROOT, resolve(ROOT, input)).split(sep).join('/');
    // A package reached through a symlinked node_modules is recorded by its path under this root.
    if (rel.includes('node_modules/')) files.add(packageJsonOf(rel.startsWith('..') ? `node_modules/${rel.split('node_modules/').pop()}` : rel));
    else if (!rel.startsWith('..')) files.add(rel);
  }
  return [...files].filter((f) => existsSync(join(ROOT, f))).sort().map(fileEntry);
}

function readRecord() {
  try {
    const r = JSON.parse(readFileSync(RECORD, 'utf8'));
    return r?.version === RECORD_VERSION ? r : undefined;
  } catch {
    return undefined;
  }
}

function writeAtomically(path, text) {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/**
 * Why the recorded bundle cannot be used, or undefined when it is fresh.
 *
 * A file whose size and mtime match its record is taken as unchanged; one
 * whose mtime moved is hashed, so a checkout or a `touch` that leaves the
 * bytes alone does not force a rebuild (the record is then refreshed).
 */
export function staleReason(record = readRecord()) {
  if (record === undefined) return 'no bundle';
  for (const name of Object.keys(ENTRIES)) {
    if (typeof record.entries?.[name] !== 'string' || !existsSync(join(CLI_DIST, record.entries[name]))) return 'bundle files missing';
  }
  let touched = false;
  for (const f of record.inputs) {
    let st;
    try {
      st = statSync(join(ROOT, f.path));
    } catch {
      return `${f.path} is gone`;
    }
    if (st.size !== f.size) return `${f.path} changed`;
    if (st.mtimeMs === f.mtimeMs) continue;
    if (sha256(readFileSync(join(ROOT, f.path))) !== f.sha256) return `${f.path} changed`;
    f.mtimeMs = st.mtimeMs;
    touched = true;
  }
  if (touched) {
    try {
      writeAtomically(RECORD, `${JSON.stringify(record)}\n`);
    } catch {
      // read-only install: the hashes still prove it fresh
    }
  }
  return undefined;
}

/** Removes bundle files no build refers to any more (older than `minAgeMs`, so a running process keeps its chunks). */
function prune(keep, minAgeMs) {
  const now = Date.now();
  for (const name of readdirSync(CLI_DIST)) {
    if (keep.has(name) || name === 'current.json') continue;
    const p = join(CLI_DIST, name);
    try {
      if (now - statSync(p).mtimeMs >= minAgeMs) rmSync(p, { recursive: true, force: true });
    } catch {
      // raced with another build's prune
    }
  }
}

/**
 * Bundles the CLI into dist/cli and records its inputs; returns the record.
 *
 * Safe to run from several processes at once: each builds into its own
 * directory, the content-hashed files are moved into place, and the record
 * (the only file a reader trusts) is replaced by one atomic rename.
 */
export async function buildCli({ pruneMinAgeMs = 10 * 60_000 } = {}) {
  const { build } = await import('esbuild');
  mkdirSync(CLI_DIST, { recursive: true });
  const tmp = join(CLI_DIST, `.build-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const result = await build({
      entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([n, src]) => [n, join(ROOT, src)])),
      absWorkingDir: ROOT,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      outdir: tmp,
      entryNames: '[name]-[hash]',
      chunkNames: 'chunk-[hash]',
      outExtension: { '.js': '.mjs' },
      external: EXTERNAL,
      // CommonJS dependencies (commander, pg) call require(); ESM output has none.
      banner: { js: "import { createRequire as __gfCreateRequire } from 'node:module'; const require = __gfCreateRequire(import.meta.url);" },
      metafile: true,
      logLevel: 'warning',
    });
    const entries = {};
    const files = new Set();
    /** Output file → the packages bundled into it (what a process that loads the file pays for). */
    const packages = {};
    for (const [out, meta] of Object.entries(result.metafile.outputs)) {
      const name = relative(tmp, resolve(ROOT, out));
      files.add(name);
      const names = new Set(Object.keys(meta.inputs).filter((i) => i.includes('node_modules/')).map((i) => dirname(packageJsonOf(i)).split('node_modules/').pop()));
      packages[name] = [...names].sort();
      const entry = Object.entries(ENTRIES).find(([, src]) => meta.entryPoint !== undefined && resolve(ROOT, meta.entryPoint) === join(ROOT, src));
      if (entry !== undefined) entries[entry[0]] = name;
    }
    for (const name of files) renameSync(join(tmp, name), join(CLI_DIST, name));
    const record = { version: RECORD_VERSION, built_at: new Date().toISOString(), entries, packages, inputs: inputsOf(result.metafile) };
    writeAtomically(RECORD, `${JSON.stringify(record)}\n`);
    prune(files, pruneMinAgeMs);
    return record;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The fresh bundle's record: checks it and rebuilds it first when stale.
 *
 * `log` hears why a rebuild happens (nothing when the bundle is fresh).
 */
export async function ensureCliBundle({ log } = {}) {
  const record = readRecord();
  const why = staleReason(record);
  if (why === undefined) return record;
  log?.(`gf: building the CLI bundle (${why}) …`);
  return buildCli();
}

/** The file URL of one entry of a fresh bundle (`gf` or `serve`). */
export async function cliEntryUrl(name, options) {
  const record = await ensureCliBundle(options);
  return pathToFileURL(join(CLI_DIST, record.entries[name])).href;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  const why = ifStale ? staleReason() : 'requested';
  if (why !== undefined) {
    const t0 = Date.now();
    const r = await buildCli({ pruneMinAgeMs: ifStale ? 10 * 60_000 : 0 });
    console.log(`gf: CLI bundle built in ${Date.now() - t0} ms (${Object.values(r.entries).join(', ')}; ${r.inputs.length} inputs)`);
  }
}
