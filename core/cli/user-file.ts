// The files a user names on the command line (an ontology, a participant, a vector file, a file of
// expected heads), read as the engine reads user paths: a regular file only, checked without blocking
// (a FIFO is refused, never waited on), bounded. The path itself is never echoed into error details.
import { GfError } from '../errors';
import { NOT_REGULAR_FILE_WORDS, readUserFile } from '../regular-file';

export { NOT_REGULAR_FILE_WORDS, readUserFile } from '../regular-file';

/** What a refused read says: the file's role in words, its limit, and the rule (and field) the refusal names. */
export interface UserFileRole {
  /** e.g. "participant file": the sentence reads "the participant file is a FIFO (named pipe), not a regular file". */
  readonly what: string;
  readonly maxBytes: number;
  readonly rule: string;
  readonly field: string;
}

/**
 * The bytes of the file a user named, or a refusal: `GF_RESOURCE_LIMIT` over its limit,
 * `GF_VALIDATION` for a path that is not a regular file (missing, a directory, a FIFO, a socket, a
 * device), `GF_IO` for one that cannot be opened for reading, each in a sentence.
 */
export function readUserFileOrRefuse(path: string, role: UserFileRole): Buffer {
  const read = readUserFile(path, role.maxBytes);
  if (read.ok) return read.bytes;
  if (read.problem === 'too_large') {
    throw new GfError('GF_RESOURCE_LIMIT', `the ${role.what} exceeds its limit of ${role.maxBytes.toLocaleString('en-US')} bytes`, { rule: role.rule, field: role.field, limit: role.maxBytes }, false);
  }
  // A file that is there but cannot be opened (permissions, an I/O error) is the system's refusal; the rest is the argument's.
  throw new GfError(read.problem === 'unreadable' ? 'GF_IO' : 'GF_VALIDATION', `the ${role.what} ${NOT_REGULAR_FILE_WORDS[read.problem]}`, { field: role.field, reason: read.problem }, false);
}
