// The one place the engine reaches into Apache Arrow's internals (a module
// path outside the package's public entry point): the diff's windowed reads
// and validation's row-range reads both decode footers through it.
// `apache-arrow` is pinned exactly in package.json; an upgrade that moves
// this breaks only here.
import { Footer } from 'apache-arrow/ipc/metadata/file';

/**
 * Decodes an Arrow IPC file footer (its schema and record-batch blocks) from
 * the footer's flatbuffer bytes, so a participant can be read by ranged
 * reads without decoding the whole file.
 */
export function decodeFileFooter(bytes: Uint8Array): Footer {
  return Footer.decode(bytes);
}
