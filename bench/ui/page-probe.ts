// In-page instrumentation for the UI benchmark, installed with
// `page.addInitScript(installProbe, config)` before the app's own scripts run.
// It never touches the renderer's code: it wraps `fetch` (to time each
// contract call and read its GF code), observes the DOM (to time when the
// history and checkpoint labels are rendered, and when "Diff cancelled" shows),
// records Long Tasks, and can click a Cancel button once a diff call has been
// in the engine for a while (checked every frame).

/** What the probe is told before the page loads. */
export interface ProbeConfig {
  /** Generations the history must show. */
  readonly generations: number;
  /** Active checkpoints the history must label. */
  readonly checkpoints: number;
}

/** One contract call seen by the wrapped `fetch`. */
export interface ProbeCall {
  readonly op: string;
  readonly start: number;
  /** When the response headers arrived (the engine answered); NaN while in flight. */
  end: number;
  readonly status: number;
  /** `ok`, the GF code of an error envelope, or null while the body is read. */
  code: string | null;
}

/** The probe's state on `window.__gfBench` (times are `performance.now()` of the page). */
export interface ProbeState {
  /** First DOM time of each condition, and `<name>_frame` one animation frame later. */
  readonly marks: Record<string, number>;
  readonly longTasks: { readonly start: number; readonly duration: number }[];
  readonly calls: ProbeCall[];
  /**
   * Set by the bench: click the `data-testid` button `button` once a
   * `checkpoints.diff` call has been in flight for `inFlightMs` and the
   * operation has run `runningMs` since `since` (a `performance.now()`).
   */
  armCancel: { readonly button: string; readonly notice: string; readonly since: number; readonly runningMs: number; readonly inFlightMs: number } | null;
  /** When Cancel was clicked. */
  cancelAt: number | null;
  /** The contract call in flight when Cancel was clicked. */
  cancelledCall: ProbeCall | null;
  /** Loaded record-diff rows (sum of the three kind counters), whether a page is loading, and whether the grid says more pages exist. */
  recordDiff(): { loaded: number; loading: boolean; more: boolean };
}

/**
 * The init-script source of the probe for `page.addInitScript({ content })`.
 *
 * tsx (esbuild keepNames) wraps named functions in `__name(...)`, a helper
 * that does not exist in the page; the script defines a no-op one first.
 */
export function probeScript(cfg: ProbeConfig): string {
  return `(() => { var __name = (f) => f; (${installProbe.toString()})(${JSON.stringify(cfg)}); })();`;
}

/** Installs the probe (runs in the page; must be self-contained). */
export function installProbe(cfg: ProbeConfig): void {
  const probe: ProbeState = {
    marks: {},
    longTasks: [],
    calls: [],
    armCancel: null,
    cancelAt: null,
    cancelledCall: null,
    recordDiff() {
      let loaded = 0;
      for (const k of ['added', 'removed', 'modified']) loaded += Number(document.querySelector(`[data-testid="count-${k}"]`)?.textContent ?? '0');
      const grid = document.querySelector('[data-testid="record-diff-grid"]');
      const status = grid?.querySelector('.grid-status')?.textContent ?? '';
      const loading = grid?.querySelector('[role="grid"]')?.getAttribute('aria-busy') === 'true';
      return { loaded, loading, more: status.includes('scroll for more') };
    },
  };
  (window as unknown as { __gfBench: ProbeState }).__gfBench = probe;

  const original = window.fetch.bind(window);
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const m = /\/api\/([A-Za-z0-9_.]+)/.exec(url);
    const start = performance.now();
    const call: ProbeCall = { op: m?.[1] ?? '', start, end: Number.NaN, status: 0, code: null };
    if (m !== null) probe.calls.push(call);
    const res = await original(input, init);
    if (m !== null) {
      call.end = performance.now();
      (call as { status: number }).status = res.status;
      if ((res.headers.get('content-type') ?? '').startsWith('application/json')) {
        void res
          .clone()
          .json()
          .then((b: unknown) => {
            const env = b as { ok?: boolean; error?: { code?: string } };
            call.code = env.ok === false ? (env.error?.code ?? 'GF_UNKNOWN') : 'ok';
          })
          .catch(() => (call.code = 'unreadable'));
      } else call.code = res.status === 200 ? 'ok' : `http ${res.status}`;
    }
    return res;
  };

  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) probe.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch {
    // No Long Tasks API: the bench reports NaN.
    probe.marks['no_longtask_api'] = 0;
  }

  const mark = (name: string): void => {
    if (probe.marks[name] !== undefined) return;
    probe.marks[name] = performance.now();
    requestAnimationFrame(() => (probe.marks[`${name}_frame`] = performance.now()));
  };
  const text = (id: string): string | null => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
  const count = (id: string): number => document.querySelectorAll(`[data-testid="${id}"]`).length;

  const check = (): void => {
    if (probe.marks['history'] === undefined && text('generation-count') === String(cfg.generations) && count('generation-row') === cfg.generations) mark('history');
    if (probe.marks['checkpoints'] === undefined && text('checkpoint-count') === String(cfg.checkpoints) && count('checkpoint-label') === cfg.checkpoints) mark('checkpoints');
    const armed = probe.armCancel;
    if (probe.cancelAt !== null && armed !== null && probe.marks['cancel_notice'] === undefined && (text(armed.notice) ?? '').includes('cancelled')) mark('cancel_notice');
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, characterData: true });

  // Cancel trigger: checked every frame while armed, so it fires mid-call, not only on DOM changes.
  const tick = (): void => {
    const armed = probe.armCancel;
    if (armed !== null && probe.cancelAt === null) {
      const now = performance.now();
      const inFlight = probe.calls.find((c) => c.op === 'checkpoints.diff' && Number.isNaN(c.end) && c.start >= armed.since);
      const button = document.querySelector<HTMLButtonElement>(`[data-testid="${armed.button}"]`);
      if (button !== null && inFlight !== undefined && now - armed.since >= armed.runningMs && now - inFlight.start >= armed.inFlightMs) {
        probe.cancelAt = now;
        probe.cancelledCall = inFlight;
        button.click();
      }
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}
