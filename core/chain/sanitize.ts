import type { TransitionEvent, TriggeringOutcome } from './event-types';

/**
 * The project-wide sanitizer: the one place that decides what looks secret.
 *
 * Every persisting path (chain adapters, and anything else that writes caller
 * text to disk) calls it instead of carrying its own patterns, so a new
 * credential shape is added once and protects everything.
 */

/** The sentinel that replaces a redacted value. */
export const REDACTED = '[REDACTED]';

/** A key (or a whole value) naming a secret: `^(?i)(.*_)?(KEY|TOKEN|SECRET|PASSWORD|PAT|JWT|CRED)(_.*)?$`. */
export const SECRET_KEY_RE = /^(.*_)?(KEY|TOKEN|SECRET|PASSWORD|PAT|JWT|CRED)(_.*)?$/is;

/**
 * Credential shapes searched anywhere in a text (private-key blocks, JWTs,
 * provider token prefixes, credentials in URLs, headers and assignments).
 */
export const CREDENTIAL_PATTERNS: readonly { readonly name: string; readonly re: RegExp }[] = [
  { name: 'pem-private-key', re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/ },
  { name: 'jwt', re: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/ },
  { name: 'github-token', re: /\bgh[pousr]_[A-Za-z0-9]{30,}/ },
  { name: 'github-fine-grained-pat', re: /\bgithub_pat_[A-Za-z0-9_]{22,}/ },
  { name: 'gitlab-token', re: /\bgl(?:pat|dt|rt|ptt|ft|cbt|imt|soat|agent)-[A-Za-z0-9_-]{20,}/ },
  { name: 'slack-token', re: /\bxox[abposre]-[A-Za-z0-9-]{10,}/ },
  { name: 'slack-app-token', re: /\bxapp-\d-[A-Za-z0-9-]{10,}/ },
  { name: 'slack-webhook', re: /hooks\.slack\.com\/services\/T[A-Za-z0-9_]+\/B[A-Za-z0-9_]+\/[A-Za-z0-9_]+/ },
  { name: 'aws-access-key-id', re: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/ },
  { name: 'google-api-key', re: /\bAIza[0-9A-Za-z_-]{35}/ },
  { name: 'google-oauth-access-token', re: /\bya29\.[0-9A-Za-z_-]{20,}/ },
  { name: 'google-oauth-client-secret', re: /\bGOCSPX-[0-9A-Za-z_-]{20,}/ },
  { name: 'anthropic-key', re: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  { name: 'openai-key', re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/ },
  { name: 'stripe-key', re: /\b(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{16,}/ },
  { name: 'stripe-webhook-secret', re: /\bwhsec_[A-Za-z0-9]{20,}/ },
  { name: 'npm-token', re: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { name: 'pypi-token', re: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}/ },
  { name: 'huggingface-token', re: /\bhf_[A-Za-z0-9]{30,}/ },
  { name: 'sendgrid-key', re: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/ },
  { name: 'twilio-api-key', re: /\bSK[0-9a-fA-F]{32}\b/ },
  { name: 'mailgun-key', re: /\bkey-[0-9a-zA-Z]{32}\b/ },
  { name: 'mailchimp-key', re: /\b[0-9a-f]{32}-us\d{1,2}\b/ },
  { name: 'digitalocean-token', re: /\bdo[opr]_v1_[a-f0-9]{64}\b/ },
  { name: 'shopify-token', re: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/ },
  { name: 'square-token', re: /\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,}/ },
  { name: 'atlassian-token', re: /\bATATT3[A-Za-z0-9_=-]{20,}/ },
  { name: 'databricks-token', re: /\bdapi[a-f0-9]{32}\b/ },
  { name: 'planetscale-token', re: /\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{20,}/ },
  { name: 'linear-key', re: /\blin_api_[A-Za-z0-9]{30,}/ },
  { name: 'notion-token', re: /\bntn_[A-Za-z0-9]{30,}/ },
  { name: 'postman-key', re: /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/ },
  { name: 'pulumi-token', re: /\bpul-[a-f0-9]{40}\b/ },
  { name: 'grafana-token', re: /\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})/ },
  { name: 'vault-token', re: /\bhv[sb]\.[A-Za-z0-9_-]{24,}/ },
  { name: 'terraform-cloud-token', re: /\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}/ },
  { name: 'doppler-token', re: /\bdp\.(?:st|ct|sa|scim|audit|pt)\.[A-Za-z0-9_-]{20,}/ },
  { name: 'sentry-token', re: /\bsntry[su]_[A-Za-z0-9_=+/]{20,}/ },
  { name: 'age-secret-key', re: /\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b/ },
  { name: 'telegram-bot-token', re: /\b\d{8,10}:AA[0-9A-Za-z_-]{33}\b/ },
  { name: 'discord-webhook', re: /discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]+/ },
  { name: 'discord-bot-token', re: /\b[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,}/ },
  { name: 'facebook-access-token', re: /\bEAA[A-Za-z0-9]{30,}/ },
  { name: 'azure-storage-account-key', re: /AccountKey=[A-Za-z0-9+/=]{20,}/ },
  { name: 'azure-sas-signature', re: /[?&]sig=[A-Za-z0-9%+/=]{20,}/ },
  { name: 'url-credentials', re: /\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@]{1,256}:[^\s@/]{1,256}@/i },
  { name: 'bearer-header', re: /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/ },
  { name: 'basic-auth-header', re: /\bBasic\s+[A-Za-z0-9+/]{16,}={0,2}/ },
  { name: 'alibaba-access-key', re: /\bLTAI[A-Za-z0-9]{20}\b/ },
  { name: 'supabase-token', re: /\bsbp_[a-f0-9]{40}\b/ },
  { name: 'netlify-token', re: /\bnfp_[A-Za-z0-9]{36}\b/ },
  { name: 'mapbox-token', re: /\b[sp]k\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}/ },
  { name: 'docker-hub-pat', re: /\bdckr_pat_[A-Za-z0-9_-]{20,}/ },
  { name: 'buildkite-token', re: /\bbkua_[a-f0-9]{40}\b/ },
  { name: 'rubygems-key', re: /\brubygems_[a-f0-9]{48}\b/ },
  { name: 'airtable-pat', re: /\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b/ },
  { name: 'onepassword-service-token', re: /\bops_eyJ[A-Za-z0-9+/=]{40,}/ },
  { name: 'tailscale-key', re: /\btskey-(?:api|auth|client)-[A-Za-z0-9]{10,}-[A-Za-z0-9]{20,}/ },
  { name: 'groq-key', re: /\bgsk_[A-Za-z0-9]{48,}/ },
  { name: 'replicate-token', re: /\br8_[A-Za-z0-9]{37}\b/ },
  { name: 'perplexity-key', re: /\bpplx-[A-Za-z0-9]{40,}/ },
  { name: 'xai-key', re: /\bxai-[A-Za-z0-9]{70,}/ },
  {
    name: 'secret-assignment',
    re: /(?:key|token|secret|passw(?:or)?d|pwd|pat|jwt|cred(?:ential)?s?)["']?\s{0,8}[:=]\s{0,8}["']?[^\s"',;]{4}/i,
  },
];

/** True when `key` names a secret (its value is redacted whatever it holds). */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY_RE.test(key);
}

// One pass per text: the patterns joined into a case-sensitive and a case-insensitive alternation.
const COMBINED: readonly RegExp[] = [false, true].map(
  (ci) =>
    new RegExp(
      CREDENTIAL_PATTERNS.filter((p) => p.re.flags.includes('i') === ci)
        .map((p) => `(?:${p.re.source})`)
        .join('|'),
      ci ? 'i' : '',
    ),
);

/** True when `text` contains a known credential shape. */
export function looksLikeCredential(text: string): boolean {
  return COMBINED.some((re) => re.test(text));
}

/** True when a string value must become the sentinel. */
export function isSecretText(text: string): boolean {
  return looksLikeCredential(text) || isSecretKey(text);
}

/** A JSON-like value the sanitizer walks. */
export type SanitizableJson = string | number | boolean | null | readonly SanitizableJson[] | { readonly [k: string]: SanitizableJson };

/**
 * Returns a copy of `value` with secrets replaced by `[REDACTED]`.
 *
 * A value under a secret-named key becomes the sentinel whatever it is; a
 * string that looks like a credential becomes the sentinel as a whole (never
 * partially masked, so no fragment of a token survives).
 */
export function sanitizeValue<T extends SanitizableJson>(value: T): T {
  return walk(value) as T;
}

function walk(value: SanitizableJson): SanitizableJson {
  if (typeof value === 'string') return isSecretText(value) ? REDACTED : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return (value as readonly SanitizableJson[]).map(walk);
  const out: Record<string, SanitizableJson> = {};
  for (const [k, v] of Object.entries(value as { readonly [k: string]: SanitizableJson })) {
    out[k] = isSecretKey(k) ? REDACTED : walk(v);
  }
  return out;
}

function sanitizeNullable(text: string | null): string | null {
  return text === null ? null : isSecretText(text) ? REDACTED : text;
}

/**
 * The event as it may be persisted: `triggering_outcome` sanitized.
 *
 * Identity fields (ids, states, time, attempt) are format-validated and stay
 * as they are; a workflow id that looks like a credential is rejected when it
 * is validated, never stored.
 */
export function sanitizeEvent(event: TransitionEvent): TransitionEvent {
  const o = event.triggering_outcome;
  const outcome: TriggeringOutcome = Object.freeze({
    kind: isSecretText(o.kind) ? REDACTED : o.kind,
    evidence_digest: sanitizeNullable(o.evidence_digest),
    detail: sanitizeNullable(o.detail),
  });
  if (outcome.kind === o.kind && outcome.evidence_digest === o.evidence_digest && outcome.detail === o.detail) return event;
  return Object.freeze({ ...event, triggering_outcome: outcome });
}
