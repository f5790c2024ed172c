/**
 * Secret redaction. It lives beside the schemas because it is part of the stored-file contract:
 * the harness (traces, cassettes) and the platform (reports) must redact the same way before
 * anything reaches disk.
 */

const KEY_PATTERNS: Array<{ label: string; pattern: RegExp }> = [
  {
    label: 'private_key',
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  },
  { label: 'anthropic_key', pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { label: 'openai_key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { label: 'stripe_key', pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { label: 'aws_access_key', pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b/g },
  { label: 'github_token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { label: 'slack_token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { label: 'google_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { label: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { label: 'bearer_token', pattern: /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{12,}/g },
];

/** `password = hunter2`, `"api_key": "..."`: the value after a secret-sounding key. */
const ASSIGNED_SECRET =
  /((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|auth)[A-Za-z0-9_-]*["']?\s*[:=]\s*["']?)([^\s"',;]{6,})/gi;

/**
 * One scan that matches wherever one of the patterns would: most strings of a trace hold no secret
 * and then skip the ten replaces, which were the largest CPU cost of a run. Patterns that cannot be
 * joined safely (flags besides g, backreferences, named groups) are tested on their own.
 */
const joinable = (p: RegExp) => p.flags === 'g' && !/\\[1-9k]|\(\?<[A-Za-z]/.test(p.source);
const ANY_KEY = new RegExp(KEY_PATTERNS.filter(({ pattern }) => joinable(pattern)).map(({ pattern }) => `(?:${pattern.source})`).join('|') || '(?!)');
const SEPARATE_KEYS = KEY_PATTERNS.filter(({ pattern }) => !joinable(pattern)).map(({ pattern }) => new RegExp(pattern.source, pattern.flags.replace('g', '')));
const MAYBE_ASSIGNED = new RegExp(ASSIGNED_SECRET.source, ASSIGNED_SECRET.flags.replace('g', ''));
const mayHoldKey = (value: string) => ANY_KEY.test(value) || SEPARATE_KEYS.some((p) => p.test(value));

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|PRIVATE|SESSION|COOKIE|DSN|CONN)/i;
const MIN_SECRET_CHARS = 6;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export interface Redactor {
  text(value: string): string;
  /** A deep copy of a JSON-like value with every string redacted. */
  deep<T>(value: T): T;
}

/** Values of secret-looking variables in `env` are redacted wherever they appear, plus `extra`. */
export function createRedactor(env: NodeJS.ProcessEnv = process.env, extra: string[] = []): Redactor {
  const literals = new Set<string>(extra.filter((s) => s.length >= MIN_SECRET_CHARS));
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_SECRET_CHARS && isSecretName(name)) literals.add(value);
  }
  // Longest first, so a secret that contains another is replaced whole.
  const ordered = [...literals].sort((a, b) => b.length - a.length);

  const text = (value: string): string => {
    let out = value;
    for (const literal of ordered) {
      if (out.includes(literal)) out = out.split(literal).join('[REDACTED:env]');
    }
    if (mayHoldKey(out)) {
      for (const { label, pattern } of KEY_PATTERNS) {
        out = out.replace(pattern, (match, scheme?: string) =>
          label === 'bearer_token' && typeof scheme === 'string' ? `${scheme} [REDACTED:${label}]` : `[REDACTED:${label}]`,
        );
      }
    }
    if (MAYBE_ASSIGNED.test(out)) out = out.replace(ASSIGNED_SECRET, (_m, key: string, secret: string) =>
      secret.startsWith('[REDACTED') ? `${key}${secret}` : `${key}[REDACTED:assigned]`,
    );
    return out;
  };

  const deep = <T>(value: T): T => {
    if (typeof value === 'string') return text(value) as T;
    if (Array.isArray(value)) return value.map((v) => deep(v)) as T;
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = deep(v);
      return out as T;
    }
    return value;
  };

  return { text, deep };
}
