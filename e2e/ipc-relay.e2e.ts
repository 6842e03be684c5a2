// The Electron-shaped pass's stand-in (e2e/support/ipc-shell.ts) is faithful:
// what the page passes to `ipcRenderer.invoke` reaches main as its structured
// clone and main's answer reaches the page as the structured clone of what the
// handler returned (every type the handlers return and more: a Uint8Array
// arrives as a Uint8Array of the page's realm, with its offset; -0, NaN,
// undefined, bigint, Date, Map, Set, …); what Electron refuses it refuses with
// Electron's words; the sender is the frame's real URL. A probe preload
// (through the same stand-in as the real one) exposes the raw `invoke`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../core/contract/wire';
import { buildApiWorkspace } from '../test/support/api-workspace';
import { ensureBuilt, launchChromium, type BrowserHandle } from './support/browser';
import { ELECTRON_FILE_ARGS, preloadInitScript, startIpcShell, type IpcShell } from './support/ipc-shell';

const PROBE_PRELOAD = `
const { contextBridge, ipcRenderer } = require('electron');
let refused = null;
try { require('fs'); } catch (e) { refused = String(e.message); }
contextBridge.exposeInMainWorld('probe', { invoke: (channel, ...args) => ipcRenderer.invoke(channel, ...args), refused });
let twice = null;
try { contextBridge.exposeInMainWorld('probe', {}); } catch (e) { twice = String(e.message); }
contextBridge.exposeInMainWorld('probeTwice', { twice });
`;

/**
 * The values carried, built the same way in Node and in the page (this
 * function's source runs in both): every JSON type, the structured-clone
 * extras, typed arrays of each kind (one a view into a larger buffer).
 */
function catalogue(): Record<string, unknown> {
  const big = new Uint8Array(64).map((_, i) => i);
  return {
    json: { s: 'text, ünïcødé, \u0000 and 😀', n: 1.5, i: -42, t: true, f: false, z: null, a: [1, 'two', [3]], o: { nested: { deep: [{}] } } },
    keyOrder: { b: 1, a: 2, 10: 'x', 2: 'y' },
    undefinedProp: { gone: undefined },
    numbers: [0, -0, NaN, Infinity, -Infinity, Number.MAX_SAFE_INTEGER, 5e-324],
    bigint: 12345678901234567890n,
    date: new Date(Date.UTC(2026, 11, 3, 16, 0, 0, 123)),
    regexp: /a+b/giu,
    map: new Map<unknown, unknown>([['k', 1], [2, { v: [3] }]]),
    set: new Set<unknown>(['a', 1, null]),
    uint8: new Uint8Array([0, 1, 2, 253, 254, 255]),
    uint8View: big.subarray(8, 24),
    empty: new Uint8Array(0),
    int32: new Int32Array([-1, 2 ** 31 - 1]),
    float64: new Float64Array([Math.PI, -0]),
    bigint64: new BigInt64Array([-(2n ** 63n), 2n ** 63n - 1n]),
    arrayBuffer: new Uint8Array([9, 8, 7]).buffer,
    error: new RangeError('out of range'),
    envelope: { ok: true, value: { kind: 'arrow', bytes: new Uint8Array([65, 82, 82, 79, 87, 49]), next_page_token: null } },
  };
}

/** A description of a value precise enough that two realms' clones compare equal only when they are (types, prototypes, -0, offsets, key order). */
function describeValue(v: unknown): unknown {
  const d = (x: unknown): unknown => {
    if (x === undefined) return ['undefined'];
    if (typeof x === 'number') return Object.is(x, -0) ? ['-0'] : Number.isNaN(x) ? ['NaN'] : ['number', String(x)];
    if (typeof x === 'bigint') return ['bigint', x.toString()];
    if (typeof x !== 'object' || x === null) return [typeof x, x];
    const tag = Object.prototype.toString.call(x);
    const proto = Object.getPrototypeOf(x) as { constructor?: { name?: string } } | null;
    const ctor = proto?.constructor?.name ?? 'null';
    if (ArrayBuffer.isView(x)) {
      const view = x as unknown as { buffer: ArrayBuffer; byteOffset: number; length: number };
      return [ctor, view.byteOffset, view.length, view.buffer.byteLength, Array.from(new Uint8Array(view.buffer))];
    }
    if (x instanceof ArrayBuffer) return [ctor, Array.from(new Uint8Array(x))];
    if (x instanceof Date) return [ctor, x.getTime()];
    if (x instanceof RegExp) return [ctor, x.source, x.flags];
    if (x instanceof Map) return [ctor, [...x.entries()].map(([k, y]) => [d(k), d(y)])];
    if (x instanceof Set) return [ctor, [...x.values()].map(d)];
    if (x instanceof Error) return [ctor, x.name, x.message];
    if (Array.isArray(x)) return [ctor, x.map(d)];
    return [tag, ctor, Object.keys(x).map((k) => [k, d((x as Record<string, unknown>)[k])])];
  };
  return d(v);
}

let base: string;
let shell: IpcShell;
let browser: BrowserHandle;
let page: Page;
const received: { url: string | null; args: unknown[] }[] = [];
let toReturn: unknown;

const invoke = (channel: string, ...args: unknown[]): Promise<unknown> =>
  page.evaluate(([c, a]) => (globalThis as unknown as { probe: { invoke(c: string, ...x: unknown[]): Promise<unknown> } }).probe.invoke(c, ...a), [channel, args] as const);

beforeAll(async () => {
  ensureBuilt();
  base = mkdtempSync(join(tmpdir(), 'gf-relay-'));
  await buildApiWorkspace(join(base, 'workspace'));
  shell = await startIpcShell(join(base, 'workspace'));
  const record = async (event: { senderFrame: { url: string } | null }, ...args: unknown[]): Promise<Envelope> => {
    received.push({ url: event.senderFrame?.url ?? null, args });
    return toReturn as Envelope;
  };
  shell.ipc.handle('gf-test:record', record);
  shell.ipc.handle('gf-test:throws', async () => {
    throw new Error('the handler failed');
  });
  browser = await launchChromium(undefined, ELECTRON_FILE_ARGS);
  await shell.attach(browser.context, PROBE_PRELOAD);
  page = await browser.context.newPage();
  await page.goto(`${shell.indexUrl}#/history`);
  await page.waitForFunction(() => 'probe' in globalThis);
});

afterAll(async () => {
  await browser?.close();
  await shell?.close();
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
});

describe('the Electron-shaped stand-in carries structured clones, nothing else', () => {
  it('page to main: main receives the structured clone of every argument, with the sender frame\'s real URL', async () => {
    received.length = 0;
    toReturn = { ok: true, value: null };
    await page.evaluate(`(async () => { const v = (${catalogue.toString()})(); await globalThis.probe.invoke('gf-test:record', v, 'second'); })()`);
    expect(received.length).toBe(1);
    expect(received[0]!.url).toBe(page.url());
    expect(received[0]!.url).toBe(`${shell.indexUrl}#/history`);
    expect(describeValue(received[0]!.args)).toEqual(describeValue([structuredClone(catalogue()), 'second']));
  });

  it('main to page: the page gets the structured clone of what the handler returned, built with its own constructors (a Uint8Array is a Uint8Array)', async () => {
    toReturn = catalogue();
    const seen = await page.evaluate(`(async () => {
      const got = await globalThis.probe.invoke('gf-test:record');
      const d = ${describeValue.toString()};
      return { described: d(got), uint8: got.uint8 instanceof Uint8Array, bytes: got.envelope.value.bytes instanceof Uint8Array, view: got.uint8View.byteOffset };
    })()`);
    expect(seen).toEqual({ described: describeValue(structuredClone(catalogue())), uint8: true, bytes: true, view: 8 });
  });

  it('a Node Buffer from main arrives as a plain Uint8Array, as Electron delivers it', async () => {
    toReturn = { ok: true, value: Buffer.from('arrow bytes') };
    const seen = await page.evaluate(`(async () => { const got = await globalThis.probe.invoke('gf-test:record'); const v = got.value; return [Object.getPrototypeOf(v) === Uint8Array.prototype, new TextDecoder().decode(v)]; })()`);
    expect(seen).toEqual([true, 'arrow bytes']);
  });

  it('what cannot be cloned is refused in the page and never reaches main; a channel without a handler and a throwing handler reject with Electron\'s words', async () => {
    received.length = 0;
    const cloneError = await page.evaluate(`globalThis.probe.invoke('gf-test:record', { f: () => 1 }).then(() => 'resolved', (e) => e.name)`);
    expect(cloneError).toBe('DataCloneError');
    expect(received.length).toBe(0);
    await expect(invoke('gf-test:none', {})).rejects.toThrow("Error invoking remote method 'gf-test:none': Error: No handler registered for 'gf-test:none'");
    await expect(invoke('gf-test:throws', {})).rejects.toThrow("Error invoking remote method 'gf-test:throws': Error: the handler failed");
  });

  it('a sandboxed preload can require only electron, and exposeInMainWorld refuses to overwrite a key; the relay binding is not left in the page', async () => {
    const seen = await page.evaluate(() => {
      const g = globalThis as unknown as Record<string, { refused?: unknown; twice?: unknown } | undefined>;
      return [g['probe']?.refused, g['probeTwice']?.twice, '__gfElectronRelay' in globalThis];
    });
    expect(seen).toEqual(["module not found: fs (a sandboxed preload can require only 'electron')", 'Cannot bind an API on top of an existing property on the window object', false]);
  });

  it('the real preload\'s init script wraps the built bundle unchanged', async () => {
    const { readFileSync } = await import('node:fs');
    const { PRELOAD_FILE } = await import('./support/ipc-shell');
    const built = readFileSync(PRELOAD_FILE, 'utf8');
    expect(preloadInitScript(built)).toContain(built);
  });
});
