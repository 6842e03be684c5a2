/** What one CLI bundle build recorded (dist/cli/current.json). */
export interface CliBundleRecord {
  readonly version: number;
  readonly built_at: string;
  /** Entry name (`gf`, `serve`) → file name under dist/cli. */
  readonly entries: Readonly<Record<'gf' | 'serve' | 'project', string>>;
  /** Output file → the packages bundled into it. */
  readonly packages: Readonly<Record<string, readonly string[]>>;
  readonly inputs: readonly { readonly path: string; readonly size: number; readonly mtimeMs: number; readonly sha256: string }[];
}

/** Options of a freshness check. */
export interface EnsureOptions {
  /** Hears why a rebuild happens (nothing when the bundle is fresh). */
  readonly log?: (line: string) => void;
}

/** The package root. */
export declare const ROOT: string;
/** Where the bundle lives. */
export declare const CLI_DIST: string;
/** Why the recorded bundle cannot be used, or undefined when it is fresh. */
export declare function staleReason(record?: CliBundleRecord): string | undefined;
/** Bundles the CLI into dist/cli and records its inputs. */
export declare function buildCli(options?: { readonly pruneMinAgeMs?: number }): Promise<CliBundleRecord>;
/** The fresh bundle's record: checks it and rebuilds it first when stale. */
export declare function ensureCliBundle(options?: EnsureOptions): Promise<CliBundleRecord>;
/** The file URL of one entry of a fresh bundle. */
export declare function cliEntryUrl(name: 'gf' | 'serve' | 'project', options?: EnsureOptions): Promise<string>;
