// Live checkpoint-name feedback. Mirrors the engine's name rules
// (core/checkpoints names: NFC, 1–128 UTF-8 bytes, letters/numbers/space/_-.)
// so the user sees the refusal while typing; the engine stays the authority
// and its GF_VALIDATION error is shown if it still refuses.

const encoder = new TextEncoder();

/** UTF-8 byte length. */
export function utf8Bytes(s: string): number {
  return encoder.encode(s).length;
}

/** Maximum checkpoint-name length in UTF-8 bytes. */
export const NAME_MAX_BYTES = 128;
/** Maximum revert-reason length in UTF-8 bytes. */
export const REASON_MAX_BYTES = 1024;

/** Why a name is refused, as a sentence for the user; null when acceptable. */
export function nameProblem(name: string): string | null {
  if (/[\uD800-\uDFFF]/u.test(name)) return 'The name contains malformed text.';
  const nfc = name.normalize('NFC');
  if (nfc.length === 0) return 'Enter a name.';
  const bytes = utf8Bytes(nfc);
  if (bytes > NAME_MAX_BYTES) return `The name is ${bytes} bytes; at most ${NAME_MAX_BYTES} UTF-8 bytes are allowed.`;
  if (nfc === '.' || nfc === '..') return 'A name cannot be "." or "..".';
  if (nfc === 'CURRENT') return '"CURRENT" is reserved: in a diff it means the current generation.';
  if (/^\s|\s$/u.test(nfc)) return 'A name cannot start or end with a space.';
  if (/\s\s/u.test(nfc)) return 'A name cannot contain two spaces in a row.';
  let previous: string | undefined;
  for (const cp of nfc) {
    if (!/^[\p{L}\p{N} _.-]$/u.test(cp)) {
      const attachedMark = /^\p{M}$/u.test(cp) && previous !== undefined && /^[\p{L}\p{M}]$/u.test(previous);
      if (!attachedMark) {
        if (cp === '/' || cp === '\\') return 'A name cannot contain "/" or "\\" (names are never paths).';
        if (/^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]$/u.test(cp)) return 'A name cannot contain control characters.';
        return `"${cp}" is not allowed: use letters, numbers, spaces, "_", "-" and ".".`;
      }
    }
    previous = cp;
  }
  if (nfc.normalize('NFKC') !== nfc) return 'The name uses a compatibility form (e.g. fullwidth letters); type the plain form.';
  return null;
}

/** Why a revert reason is refused; null when acceptable. */
export function reasonProblem(reason: string): string | null {
  if (reason.trim().length === 0) return 'A reason is required (1–1,024 UTF-8 bytes).';
  const bytes = utf8Bytes(reason);
  if (bytes > REASON_MAX_BYTES) return `The reason is ${bytes} bytes; at most 1,024 UTF-8 bytes are allowed.`;
  return null;
}
