// Terminal-safe text: no import beyond the CLI's io type, so `gf` wraps its output
// before any command (and `gf --help`) loads the formatters.
import type { CliIo } from './io';

// C0 controls except TAB and LF, DEL, C1 controls, and the bidi overrides and isolates that reorder what a terminal shows.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// In one table cell TAB and LF are escaped too: a cell is one line.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CELL_CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const u4 = (c: string): string => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`;

/**
 * Escapes terminal control characters in text bound for a terminal (`\u001b` for ESC, …).
 *
 * User text (checkpoint names, descriptions, reasons, values) reaches stdout
 * and stderr; an ESC, BEL, CSI or bidi override there would let it clear the
 * screen, set the title or disguise output. TAB and LF (the output's own
 * layout) are kept. Inside JSON strings the escape is JSON's own, so JSON
 * output stays valid and means the same.
 */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, u4);
}

/** `escapeControl` for one table cell: TAB and LF escaped too (a cell is one line). */
export function escapeCell(text: string): string {
  return text.replace(CELL_CONTROL, u4);
}

/** Wraps the CLI's output so every text chunk is escaped (binary chunks, i.e. Arrow IPC, pass unchanged). */
export function escapingIo(io: CliIo): CliIo {
  return {
    stdout: (c) => io.stdout(typeof c === 'string' ? escapeControl(c) : c),
    stderr: (c) => io.stderr(escapeControl(c)),
  };
}

