/**
 * Secret-shaped strings (synthetic: built from filler, never real credentials).
 *
 * Each sample names the shape it stands for; every one must be redacted by
 * the sanitizer wherever it appears in stored text.
 */
const a = (n: number): string => 'aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY'.repeat(Math.ceil(n / 32)).slice(0, n);
const hex = (n: number): string => '0123456789abcdef'.repeat(Math.ceil(n / 16)).slice(0, n);
const up = (n: number): string => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'.repeat(Math.ceil(n / 32)).slice(0, n);

/** One synthetic secret and the shape it represents. */
export interface SecretSample {
  readonly shape: string;
  readonly secret: string;
  /** True when the shape is recognised only as a whole value (a secret-named value), not inside prose. */
  readonly standalone?: boolean;
}

/** At least fifty shapes: provider tokens, key blocks, JWTs, URL/header credentials, secret-named values. */
export const SECRET_SAMPLES: readonly SecretSample[] = [
  { shape: 'pem-rsa-private-key', secret: `-----BEGIN RSA PRIVATE KEY-----\nMIIE${a(40)}\n-----END RSA PRIVATE KEY-----` },
  { shape: 'pem-private-key', secret: `-----BEGIN PRIVATE KEY-----\n${a(48)}` },
  { shape: 'openssh-private-key', secret: `-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn${a(30)}` },
  { shape: 'pgp-private-key', secret: `-----BEGIN PGP PRIVATE KEY BLOCK-----\n${a(30)}` },
  { shape: 'jwt', secret: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx${a(12)}.${a(43)}` },
  { shape: 'github-classic-pat', secret: `ghp_${a(36)}` },
  { shape: 'github-oauth', secret: `gho_${a(36)}` },
  { shape: 'github-user-to-server', secret: `ghu_${a(36)}` },
  { shape: 'github-server-to-server', secret: `ghs_${a(36)}` },
  { shape: 'github-refresh', secret: `ghr_${a(36)}` },
  { shape: 'github-fine-grained-pat', secret: `github_pat_${a(22)}_${a(59)}` },
  { shape: 'gitlab-pat', secret: `glpat-${a(20)}` },
  { shape: 'gitlab-runner', secret: `glrt-${a(20)}` },
  { shape: 'slack-bot', secret: `xoxb-1234567890-${a(24)}` },
  { shape: 'slack-user', secret: `xoxp-1234567890-${a(24)}` },
  { shape: 'slack-app', secret: `xapp-1-A0${a(20)}` },
  { shape: 'slack-webhook', secret: `https://hooks.slack.com/services/T0${up(8)}/B0${up(8)}/${a(24)}` },
  { shape: 'aws-access-key-id', secret: `AKIA${up(16)}` },
  { shape: 'aws-sts-key-id', secret: `ASIA${up(16)}` },
  { shape: 'aws-secret-assignment', secret: `aws_secret_access_key=${a(40)}` },
  { shape: 'google-api-key', secret: `AIza${a(35)}` },
  { shape: 'google-oauth-access', secret: `ya29.${a(60)}` },
  { shape: 'google-client-secret', secret: `GOCSPX-${a(28)}` },
  { shape: 'openai-key', secret: `sk-${a(48)}` },
  { shape: 'openai-project-key', secret: `sk-proj-${a(64)}` },
  { shape: 'anthropic-key', secret: `sk-ant-api03-${a(80)}` },
  { shape: 'stripe-live-secret', secret: `sk_live_${a(24)}` },
  { shape: 'stripe-restricted', secret: `rk_test_${a(24)}` },
  { shape: 'stripe-webhook-secret', secret: `whsec_${a(32)}` },
  { shape: 'npm-token', secret: `npm_${a(36)}` },
  { shape: 'pypi-token', secret: `pypi-AgEIcHlwaS5vcmc${a(50)}` },
  { shape: 'huggingface-token', secret: `hf_${a(34)}` },
  { shape: 'sendgrid-key', secret: `SG.${a(22)}.${a(43)}` },
  { shape: 'twilio-api-key', secret: `SK${hex(32)}` },
  { shape: 'mailgun-key', secret: `key-${a(32)}` },
  { shape: 'mailchimp-key', secret: `${hex(32)}-us12` },
  { shape: 'digitalocean-pat', secret: `dop_v1_${hex(64)}` },
  { shape: 'shopify-access-token', secret: `shpat_${hex(32)}` },
  { shape: 'square-access-token', secret: `sq0atp-${a(22)}` },
  { shape: 'atlassian-api-token', secret: `ATATT3x${a(40)}` },
  { shape: 'databricks-token', secret: `dapi${hex(32)}` },
  { shape: 'planetscale-token', secret: `pscale_tkn_${a(43)}` },
  { shape: 'linear-api-key', secret: `lin_api_${a(40)}` },
  { shape: 'notion-token', secret: `ntn_${a(46)}` },
  { shape: 'postman-key', secret: `PMAK-${hex(24)}-${hex(34)}` },
  { shape: 'pulumi-token', secret: `pul-${hex(40)}` },
  { shape: 'grafana-service-account', secret: `glsa_${a(32)}_${hex(8)}` },
  { shape: 'vault-service-token', secret: `hvs.${a(90)}` },
  { shape: 'terraform-cloud-token', secret: `${a(14)}.atlasv1.${a(67)}` },
  { shape: 'doppler-token', secret: `dp.st.${a(40)}` },
  { shape: 'sentry-token', secret: `sntrys_${a(60)}` },
  { shape: 'age-secret-key', secret: `AGE-SECRET-KEY-1${up(58)}` },
  { shape: 'telegram-bot-token', secret: `123456789:AA${a(33)}` },
  { shape: 'discord-webhook', secret: `https://discord.com/api/webhooks/123456789012345678/${a(68)}` },
  { shape: 'facebook-access-token', secret: `EAACEdEose0cBA${a(40)}` },
  { shape: 'azure-storage-connection', secret: `DefaultEndpointsProtocol=https;AccountName=x;AccountKey=${a(86)}==` },
  { shape: 'azure-sas', secret: `https://x.blob.core.windows.net/c?sv=2022-11-02&sig=${a(43)}%3D` },
  { shape: 'postgres-url-credentials', secret: `postgres://admin:${a(16)}@db.internal:5432/app` },
  { shape: 'https-url-credentials', secret: `https://deploy:${a(20)}@git.example.com/repo.git` },
  { shape: 'bearer-header', secret: `Authorization: Bearer ${a(40)}` },
  { shape: 'basic-header', secret: `Authorization: Basic ${a(32)}==` },
  { shape: 'alibaba-access-key', secret: `LTAI${a(20)}` },
  { shape: 'supabase-token', secret: `sbp_${hex(40)}` },
  { shape: 'docker-hub-pat', secret: `dckr_pat_${a(27)}` },
  { shape: 'rubygems-key', secret: `rubygems_${hex(48)}` },
  { shape: 'tailscale-key', secret: `tskey-auth-${a(12)}-${a(30)}` },
  { shape: 'groq-key', secret: `gsk_${a(52)}` },
  { shape: 'replicate-token', secret: `r8_${a(37)}` },
  { shape: 'password-assignment', secret: `password=${a(14)}` },
  { shape: 'token-json-field', secret: `{"access_token": "${a(30)}"}` },
  { shape: 'secret-named-value', secret: 'DEPLOY_SECRET', standalone: true },
  { shape: 'key-named-value', secret: 'signing_key_v2', standalone: true },
];
