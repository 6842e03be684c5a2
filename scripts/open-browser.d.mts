import type { ChildProcess } from 'node:child_process';

/** Inputs of the open decision (defaults: the running process's). */
export interface OpenOptions {
  readonly argv?: readonly string[];
  readonly platform?: NodeJS.Platform;
  readonly env?: NodeJS.ProcessEnv;
  /** Whether a path is an executable file (default: a real stat + access check). */
  readonly exists?: (file: string) => boolean;
}

/** The environment variable naming a file that records the open command instead of running it. */
export declare const OPEN_LOG_ENV: 'GF_OPEN_BROWSER_LOG';
/** The first executable named `name` on PATH, else undefined. */
export declare function findOnPath(name: string, env?: NodeJS.ProcessEnv, exists?: (file: string) => boolean): string | undefined;
/** Whether and how `npm start` opens `url`. */
export declare function openDecision(
  url: string,
  options?: OpenOptions,
): { readonly command: string; readonly args: readonly string[] } | { readonly reason: string };
/** Opens `url` as `openDecision` says; never throws. */
export declare function openBrowser(
  url: string,
  options?: OpenOptions,
): { readonly opened: true; readonly command: string; readonly child?: ChildProcess } | { readonly opened: false; readonly reason: string };
