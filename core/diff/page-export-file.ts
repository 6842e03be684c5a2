// Writes a diff table as an Arrow IPC stream file (exports).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { RecordBatchStreamWriter } from 'apache-arrow';
import type { Table } from 'apache-arrow';
import { GfError } from '../errors';

/** The writer internals this module drives (apache-arrow is pinned exactly; see package.json). */
interface StreamWriterInternals {
  _started: boolean;
  _position: number;
  _write(chunk: ArrayBufferView): StreamWriterInternals;
}

/**
 * Writes `table` (a whole record diff, or any Arrow table) to `file` as one Arrow IPC stream, durably and atomically.
 *
 * The bytes are exactly `tableToIPC(table, 'stream')`. Why: that call
 * builds the whole stream as one buffer and the write copies it again, so at
 * 10M records (a 40 MB diff) the export grew faster than the diff itself.
 * Here each message goes to the file as Apache Arrow's stream writer
 * produces it (no whole-stream buffer), into a private sibling that is
 * flushed to disk and renamed into place: a reader never sees a partial
 * export, and a failed one leaves nothing behind (`GF_IO`, with the
 * system's error code and no path).
 */
export function writeArrowStreamFile(file: string, table: Table): { readonly byteLength: number } {
  const target = path.resolve(file);
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, 'wx', 0o600);
    const out = fd;
    let written = 0;
    const writer = new RecordBatchStreamWriter();
    (writer as unknown as StreamWriterInternals)._write = function (this: StreamWriterInternals, chunk: ArrayBufferView) {
      if (this._started && chunk.byteLength > 0) {
        const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        for (let at = 0; at < bytes.length; ) at += fs.writeSync(out, bytes, at, bytes.length - at);
        written += bytes.length;
        this._position += bytes.length;
      }
      return this;
    };
    writer.writeAll(table);
    writer.finish();
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, target);
    return { byteLength: written };
  } catch (e) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    const errno = (e as { code?: unknown }).code;
    if (typeof errno === 'string' && /^E[A-Z0-9]{1,15}$/.test(errno)) throw new GfError('GF_IO', 'the export could not be written', { errno });
    throw e;
  }
}
