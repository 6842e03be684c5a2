// The files a user names on the command line (an ontology, …), read as the engine reads user paths:
// a regular file only, checked without blocking (a FIFO is refused, never waited on), bounded.
export { NOT_REGULAR_FILE_WORDS, readUserFile } from '../regular-file';
