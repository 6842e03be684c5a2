// Checkpoint-name rules (ADR-0014 "Names"), declared once for the engine, the
// contract's request schemas, the CLI and the renderer's live feedback. Browser-safe.
import { CURRENT_SELECTOR } from './diff';
import { GfError } from '../errors';

/** Bounds on caller text stored in the registry (ADR-0014 "Names" and "Limits"). */
export const NAME_MAX_UTF8_BYTES = 128;
export const DESCRIPTION_MAX_UTF8_BYTES = 1024;

/** Why a name was refused; a closed, value-free vocabulary safe for error details. */
export const NAME_REFUSALS = [
  'not_text',
  'malformed_unicode',
  'empty',
  'too_long',
  'dot_name',
  'outer_whitespace',
  'repeated_whitespace',
  'control_character',
  'invisible_character',
  'path_separator',
  'disallowed_character',
  'normalization_ambiguity',
] as const;
export type NameRefusal = (typeof NAME_REFUSALS)[number];

const encoder = new TextEncoder();

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** One code point that shows as nothing (Unicode's Default_Ignorable_Code_Point, which includes the Hangul fillers). */
const INVISIBLE = /^\p{Default_Ignorable_Code_Point}$/u;

/** Control, format (bidi controls such as U+202E), line/paragraph separators and invisible code points: never in a name or a label. */
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

/** True when `text` has a code point that is a control, a bidi or other format control, or invisible. */
export function hasUnshowableCharacter(text: string): boolean {
  return UNSHOWABLE.test(text);
}

/** True when `text` has no lone surrogate (it has an exact UTF-8 encoding). */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** UTF-8 byte length of well-formed text. */
export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/**
 * Classifies one code point of an NFC name.
 *
 * Letters, numbers, U+0020, `_`, `-` and `.` are allowed. A combining mark is
 * allowed only when attached to a preceding letter (scripts such as
 * Devanagari keep marks that NFC cannot compose); a mark anywhere else would
 * be an invisible, ambiguous name.
 */
function refusalFor(cp: string, previous: string | undefined): NameRefusal | null {
  if (/^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]$/u.test(cp)) return 'control_character';
  // Default-ignorable code points (variation selectors, Hangul fillers, U+034F…) render as nothing:
  // `a\u034Fb` would look exactly like `ab`. Checked before letters and marks: some of them are either.
  if (INVISIBLE.test(cp)) return 'invisible_character';
  if (/^[\p{L}\p{N} _.-]$/u.test(cp)) return null;
  if (/^\p{M}$/u.test(cp) && previous !== undefined && /^[\p{L}\p{M}]$/u.test(previous)) return null;
  if (cp === '/' || cp === '\\') return 'path_separator';
  return 'disallowed_character';
}

/** The refusal for `name`, or null when it is an acceptable checkpoint name. Pure. */
export function nameRefusal(name: unknown): NameRefusal | null {
  if (typeof name !== 'string') return 'not_text';
  if (!isWellFormedText(name)) return 'malformed_unicode';
  const nfc = name.normalize('NFC');
  if (nfc.length === 0) return 'empty';
  if (utf8Length(nfc) > NAME_MAX_UTF8_BYTES) return 'too_long';
  if (nfc === '.' || nfc === '..') return 'dot_name';
  if (/^\s|\s$/u.test(nfc)) return 'outer_whitespace';
  if (/\s\s/u.test(nfc)) return 'repeated_whitespace';
  let previous: string | undefined;
  for (const cp of nfc) {
    const r = refusalFor(cp, previous);
    if (r !== null) return r;
    previous = cp;
  }
  // Compatibility forms (fullwidth letters, ligatures, superscripts, NBSP…)
  // look like other names: refusing them keeps one spelling per visible name.
  if (nfc.normalize('NFKC') !== nfc) return 'normalization_ambiguity';
  return null;
}

/**
 * The normalized (NFC) checkpoint name, or `GF_VALIDATION`.
 *
 * Names are content, never paths: they are compared by exact normalized
 * bytes and are never joined to a filesystem path anywhere in the engine.
 * Error details carry only the refusal kind and byte length, never the text.
 */
export function normalizeName(name: unknown): string {
  const refusal = nameRefusal(name);
  if (refusal !== null) {
    const bytes = typeof name === 'string' && isWellFormedText(name) ? utf8Length(name.normalize('NFC')) : 0;
    throw new GfError('GF_VALIDATION', `invalid checkpoint name (${refusal})`, {
      field: 'name',
      refusal,
      utf8_bytes: bytes,
      limit: NAME_MAX_UTF8_BYTES,
    });
  }
  return (name as string).normalize('NFC');
}

/** True when `name` is already a valid normalized name (used to validate stored rows). */
export function isNormalizedName(name: unknown): name is string {
  return nameRefusal(name) === null && (name as string).normalize('NFC') === name;
}

/**
 * A validated description: null, or well-formed text of at most 1,024 UTF-8 bytes.
 *
 * Descriptions are kept byte for byte (no normalization or trimming): they
 * are part of the canonical create request.
 */
export function validateDescription(description: unknown): string | null {
  if (description === null || description === undefined) return null;
  if (typeof description !== 'string' || !isWellFormedText(description)) {
    throw new GfError('GF_VALIDATION', 'description must be well-formed text', { field: 'description' });
  }
  const bytes = utf8Length(description);
  if (bytes > DESCRIPTION_MAX_UTF8_BYTES) {
    throw new GfError('GF_VALIDATION', 'description is too long', {
      field: 'description',
      utf8_bytes: bytes,
      limit: DESCRIPTION_MAX_UTF8_BYTES,
    });
  }
  return description;
}

/** Why a name is refused, as a sentence for the user (live feedback while typing); null when acceptable. */
export function nameProblem(name: string): string | null {
  const refusal = nameRefusal(name);
  switch (refusal) {
    case null:
      return null;
    case 'not_text':
    case 'malformed_unicode':
      return 'The name contains malformed text.';
    case 'empty':
      return 'Enter a name.';
    case 'too_long':
      return `The name is ${utf8Length(name.normalize('NFC'))} bytes; at most ${NAME_MAX_UTF8_BYTES} UTF-8 bytes are allowed.`;
    case 'dot_name':
      return 'A name cannot be "." or "..".';
    case 'outer_whitespace':
      return 'A name cannot start or end with a space.';
    case 'repeated_whitespace':
      return 'A name cannot contain two spaces in a row.';
    case 'path_separator':
      return 'A name cannot contain "/" or "\\" (names are never paths).';
    case 'control_character':
      return 'A name cannot contain control characters.';
    case 'invisible_character':
      return 'A name cannot contain invisible characters (such as U+034F or the Hangul fillers U+115F, U+1160): it would look like another name.';
    case 'disallowed_character': {
      const bad = firstDisallowed(name.normalize('NFC'));
      return `"${bad}" is not allowed: use letters, numbers, spaces, "_", "-" and ".".`;
    }
    case 'normalization_ambiguity':
      return 'The name uses a compatibility form (e.g. fullwidth letters); type the plain form.';
    default:
      return `The name is not allowed (${String(refusal)}).`;
  }
}

/**
 * The name rule a refusal breaks, as a sentence without the value (for error messages on every surface).
 */
export function nameRuleSentence(refusal: NameRefusal): string {
  switch (refusal) {
    case 'not_text':
    case 'malformed_unicode':
      return 'a name must be well-formed text';
    case 'empty':
      return 'a name must not be empty';
    case 'too_long':
      return `a name has at most ${NAME_MAX_UTF8_BYTES} UTF-8 bytes`;
    case 'dot_name':
      return 'a name cannot be "." or ".."';
    case 'outer_whitespace':
      return 'a name cannot start or end with a space';
    case 'repeated_whitespace':
      return 'a name cannot contain two spaces in a row';
    case 'control_character':
      return 'a name cannot contain control or format characters';
    case 'invisible_character':
      return 'a name cannot contain invisible characters (it would look like another name)';
    case 'path_separator':
      return 'a name cannot contain "/" or "\\" (names are never paths)';
    case 'disallowed_character':
      return 'a name uses only letters, numbers, spaces, "_", "-" and "."';
    case 'normalization_ambiguity':
      return 'a name cannot use compatibility forms (such as fullwidth letters): type the plain form';
  }
}

/** The first code point of an NFC name that the name rule refuses. */
function firstDisallowed(nfc: string): string {
  let previous: string | undefined;
  for (const cp of nfc) {
    if (refusalFor(cp, previous) !== null) return cp;
    previous = cp;
  }
  return '';
}

/**
 * Why a name is refused for a NEW checkpoint, as a sentence; null when acceptable.
 *
 * The name rule plus the reserved selector: `CURRENT` means the live generation
 * in a diff, so no new checkpoint may take it (existing legacy rows still open).
 */
export function newNameProblem(name: string): string | null {
  return nameProblem(name) ?? (name.normalize('NFC') === CURRENT_SELECTOR ? `"${CURRENT_SELECTOR}" is reserved: in a diff it means the current generation.` : null);
}
