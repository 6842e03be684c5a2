// The request schema atoms every operation domain builds from: UUIDs and
// handles, checkpoint names and diff selectors, page sizes and tokens, paths,
// reasons, identities and timeouts, each bounded once. Browser-safe (zod and
// core/contract only); core/contract/ops/<domain>.ts compose them.
import { z } from 'zod';
import { CURRENT_SELECTOR, DIFF_PAGE_LIMITS } from '../diff';
import { DESCRIPTION_MAX_UTF8_BYTES, NAME_MAX_UTF8_BYTES, nameRefusal, nameRuleSentence, utf8Length } from '../names';
import { REASON_MAX_UTF8_BYTES, REASON_MAX_RAW_CHARS, reasonRefusal } from '../reasons';
import { WORKFLOW_ID_PATTERN } from '../chain';
import { DISPLAY_NAME_MAX_CHARS, displayNameRefusal } from '../actor';

/** Lowercase canonical UUID text (the only UUID spelling any surface accepts). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Opaque page tokens: base64url segments joined by `.`, never parsed by a surface. */
export const PAGE_TOKEN_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** Contract limits (checkpoint-api-v1.json `limits`, plus surface bounds): each one declared once, where its rule lives. */
export const LIMITS = {
  nameUtf8Bytes: NAME_MAX_UTF8_BYTES,
  descriptionUtf8Bytes: DESCRIPTION_MAX_UTF8_BYTES,
  reasonUtf8Bytes: REASON_MAX_UTF8_BYTES,
  pageMax: DIFF_PAGE_LIMITS.max,
  pathChars: 4096,
  identifierChars: 128,
} as const;

/** A C0 or C1 control character (refused in every text that names something). */
// eslint-disable-next-line no-control-regex
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A session handle returned by `project.open`/`project.create` (or `view.open` for views). */
export const handleSchema = z.string('a handle is the text project.open returned').regex(UUID_PATTERN, 'a handle is the lowercase UUID project.open returned');
/** A canonical lowercase UUID. */
export const uuidSchema = z.string('a UUID is text').regex(UUID_PATTERN, 'a UUID is canonical lowercase (8-4-4-4-12 hex digits)');
/** An optional, nullable actor UUID. */
export const actorSchema = uuidSchema.nullable().optional();

/**
 * A checkpoint name as it crosses a surface.
 *
 * Names are content, never paths. The surface applies the engine's own rule
 * (core/contract/names.ts: NFC first, then 1–128 UTF-8 bytes, letters,
 * numbers, space, `_-.`), so the API accepts exactly what the engine and the
 * CLI accept. The raw text is bounded at four code units per NFC byte (a
 * decomposed name is longer before NFC than after).
 */
export const checkpointNameSchema = z
  .string()
  .min(1)
  .max(4 * LIMITS.nameUtf8Bytes)
  .superRefine((s, ctx) => {
    const refusal = nameRefusal(s);
    if (refusal !== null) ctx.addIssue({ code: 'custom', message: nameRuleSentence(refusal), params: { rule: refusal } });
  });

/** Diff endpoint: a checkpoint name or the reserved selector `CURRENT`. */
export const selectorSchema = z.union([z.literal(CURRENT_SELECTOR), checkpointNameSchema]);

/**
 * The name of a NEW checkpoint: a checkpoint name that is not the reserved selector `CURRENT`.
 *
 * Reserving the name keeps every diff endpoint unambiguous (ADR-0014: diff
 * accepts checkpoint names plus the reserved selector CURRENT).
 */
export const newCheckpointNameSchema = checkpointNameSchema.refine((s) => s.normalize('NFC') !== CURRENT_SELECTOR, 'CURRENT is reserved');

/** A page size (1 to the contract's page maximum), optional. */
export const limitSchema = z
  .number('a page size is a whole number')
  .int('a page size is a whole number')
  .min(1, 'a page size is at least 1')
  .max(LIMITS.pageMax, `a page size is at most ${LIMITS.pageMax}`)
  .optional();
/** The next-page token a previous page returned (opaque), optional. */
export const afterSchema = z.string().max(4096).regex(PAGE_TOKEN_PATTERN).nullable().optional();

/**
 * A directory chosen explicitly by the user (open/create project only).
 *
 * The only request field that is ever a path; the facade validates it is an
 * absolute directory before touching anything.
 */
export const directorySchema = z
  .string()
  .min(1)
  .max(LIMITS.pathChars)
  .refine((s) => !CONTROL.test(s), 'path has a control character');

/** Text of at most `maxBytes` UTF-8 bytes. */
export const boundedText = (maxBytes: number) =>
  z
    .string()
    .max(maxBytes)
    .refine((s) => utf8Length(s) <= maxBytes, 'text too long');

/**
 * A revert reason: 1–1,024 UTF-8 bytes after trimming (core/contract/reasons.ts).
 *
 * Counted after trimming, as the engine stores it; the raw text is bounded
 * separately so a reason padded with whitespace is still accepted.
 */
export const reasonSchema = z
  .string()
  .max(REASON_MAX_RAW_CHARS)
  .max(REASON_MAX_RAW_CHARS, 'a reason is 1 to 1,024 UTF-8 bytes after trimming')
  .refine((s) => reasonRefusal(s) === null, 'a reason is 1 to 1,024 UTF-8 bytes after trimming');

/** A display name (core/contract/actor.ts: 1–64 characters after trimming, no control character). */
export const displayNameSchema = z.string().max(4 * DISPLAY_NAME_MAX_CHARS).refine((s) => displayNameRefusal(s) === null, 'a display name is 1 to 64 characters without control characters');

/** A chain workflow id (core/contract/chain.ts). */
export const workflowIdSchema = z.string().regex(WORKFLOW_ID_PATTERN);
/** A capability or record family id. */
export const identifierSchema = z.string().regex(/^[a-z][a-z0-9_-]{0,127}$/);
/** A declared field name of a record family. */
export const fieldNameSchema = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);
/**
 * A record identity: the family's identity field names → values.
 *
 * Timestamps travel as decimal microsecond text (no precision loss); the
 * facade converts each value to its field's kind.
 */
export const identitySchema = z
  .record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), z.union([z.string().max(1024), z.number(), z.boolean(), z.null()]))
  .refine((r) => Object.keys(r).length >= 1 && Object.keys(r).length <= 8, 'identity has 1–8 fields');
/** A content digest: `sha256:` or `blake3:` and 64 lowercase hex digits. */
export const digestSchema = z.string().regex(/^(sha256|blake3):[0-9a-f]{64}$/);
/** How long a write waits for a busy writer lock, in milliseconds (0, the default: fail at once with `GF_WRITER_BUSY`). */
export const timeoutSchema = z.number('a timeout is a whole number of milliseconds').int('a timeout is a whole number of milliseconds').min(0, 'a timeout is at least 0 ms').max(3_600_000, 'a timeout is at most 3,600,000 ms (one hour)').optional();
