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

/** Names the assignment rule would take for secrets that are not: the shell's working folders. */
const NOT_SECRET_NAMES = /^(?:OLD)?PWD$/i;

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|PRIVATE|SESSION|COOKIE|DSN|CONN)/i;
const MIN_SECRET_CHARS = 6;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export interface Redactor {
  text(value: string): string;
  /** A deep copy of a JSON-like value with every string redacted, object keys included. */
  deep<T>(value: T): T;
  /**
   * At most `max` characters of `value`, redacted before the cut, so a secret straddling the cut
   * cannot leave its first part behind.
   */
  preview(value: string, max: number): string;
}

/** No secret a pattern knows is longer than this without whitespace (a PEM block has line breaks). */
const CUT_TOKEN_MAX = 512;

/**
 * The text a cut went through, without the token the cut went through (at its `end` or `start`):
 * a secret's half is still a secret. At most CUT_TOKEN_MAX characters go, so text that is one long
 * token (a base64 blob, a minified answer) keeps a hard-cut part instead of becoming empty.
 */
export function dropCutToken(text: string, side: 'end' | 'start'): string {
  let n = 0;
  if (side === 'end') {
    while (n < CUT_TOKEN_MAX && n < text.length && /\S/.test(text[text.length - 1 - n]!)) n++;
    return text.slice(0, text.length - n);
  }
  while (n < CUT_TOKEN_MAX && n < text.length && /\S/.test(text[n]!)) n++;
  return text.slice(n);
}

/**
 * A cut for text that is redacted later (where no redactor is at hand): a token straddling the cut
 * is dropped (see dropCutToken), so no secret is left half-visible for the redactor to miss.
 */
export function cutAtToken(value: string, max: number): string {
  if (value.length <= max) return value;
  const head = value.slice(0, max);
  return /\S/.test(value[max]!) ? dropCutToken(head, 'end') : head;
}

/** Redaction looks this far past a preview's cut (a secret can be no longer, or it is a PEM block, which runs to the end). */
const PREVIEW_MARGIN = 4096;
/** Distinct keys remembered per redactor (keys repeat: span attributes, fields). */
const KEY_CACHE_LIMIT = 10_000;

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
    if (MAYBE_ASSIGNED.test(out)) out = out.replace(ASSIGNED_SECRET, (match: string, key: string, secret: string, offset: number, whole: string) => {
      if (secret.startsWith('[REDACTED')) return `${key}${secret}`;
      // The whole name the key is part of: `PWD=/home/me` (the shell's folder) is no secret.
      const name = /[A-Za-z0-9_]*$/.exec(whole.slice(Math.max(0, offset - 64), offset))![0] + /^[A-Za-z0-9_-]*/.exec(key)![0];
      return NOT_SECRET_NAMES.test(name) ? match : `${key}[REDACTED:assigned]`;
    });
    return out;
  };

  const keys = new Map<string, string>();
  const key = (k: string): string => {
    let redacted = keys.get(k);
    if (redacted === undefined) {
      redacted = text(k);
      if (keys.size < KEY_CACHE_LIMIT) keys.set(k, redacted);
    }
    return redacted;
  };

  const deep = <T>(value: T): T => {
    if (typeof value === 'string') return text(value) as T;
    if (Array.isArray(value)) return value.map((v) => deep(v)) as T;
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        let name = key(k);
        // Two secret keys redact to the same name; neither value is dropped.
        for (let n = 2; name !== k && name in out; n++) name = `${key(k)}#${n}`;
        out[name] = deep(v);
      }
      return out as T;
    }
    return value;
  };

  const longestLiteral = ordered[0]?.length ?? 0;
  const preview = (value: string, max: number): string => {
    const window = value.slice(0, max + Math.max(PREVIEW_MARGIN, longestLiteral));
    let redacted = text(window);
    // Redaction shortened the window so much that text past its end would show: redact it all.
    if (window.length < value.length && redacted.length < max + 64) redacted = text(value);
    return redacted.slice(0, max);
  };

  return { text, deep, preview };
}

/**
 * Redaction by the fixed key patterns alone, with no value from this machine's environment: the
 * same on every machine. Cassette keys see a request's text through it (a prompt holding a value of
 * the recording machine's environment must key the same where that variable is unset).
 */
export const patternRedactor: Redactor = createRedactor({}, []);
