/**
 * Secret redaction. It lives beside the schemas because it is part of the stored-file contract:
 * the harness (traces, cassettes) and the platform (reports) must redact the same way before
 * anything reaches disk.
 */

/**
 * The key shapes. Each begins at a word start (`\b`); a cut one (see below) ends where the text or a
 * line ends. Text that is still JSON-escaped is matched through its escapeView.
 */
const KEY_SHAPES: Array<{ label: string; body: string; cut?: true }> = [
  { label: 'anthropic_key', body: 'sk-ant-[A-Za-z0-9_-]{16,}' },
  { label: 'openai_key', body: 'sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}' },
  { label: 'stripe_key', body: '[rs]k_(?:live|test)_[A-Za-z0-9]{16,}' },
  { label: 'aws_access_key', body: String.raw`(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b` },
  { label: 'github_token', body: '(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})' },
  { label: 'slack_token', body: 'xox[abposr]-[A-Za-z0-9-]{10,}' },
  { label: 'google_api_key', body: 'AIza[0-9A-Za-z_-]{35}' },
  { label: 'jwt', body: String.raw`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}` },
  { label: 'bearer_token', body: String.raw`(Bearer|Basic|Token)(?:\\?\s)+[A-Za-z0-9._~+/=-]{12,}` },
  // After the whole keys, what a command's own cut (`head -c`) left of one where the text or a line
  // ends: a key's distinctive prefix and a few characters more. Half a key is still a key.
  // (A bare `sk-` word is common; seven characters of a 48-character key tell little.)
  { label: 'openai_key', body: '(?:sk-(?:proj-|ant-|svcacct-|admin-)[A-Za-z0-9_-]{2,}|sk-[A-Za-z0-9_-]{8,})', cut: true },
  { label: 'stripe_key', body: '[rs]k_(?:live|test)_[A-Za-z0-9]{4,}', cut: true },
  { label: 'aws_access_key', body: '(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{4,15}', cut: true },
  { label: 'github_token', body: '(?:gh[pousr]_[A-Za-z0-9]{4,}|github_pat_[A-Za-z0-9_]{4,})', cut: true },
  { label: 'slack_token', body: 'xox[abposr]-[A-Za-z0-9-]{4,}', cut: true },
  { label: 'google_api_key', body: 'AIza[0-9A-Za-z_-]{4,}', cut: true },
  { label: 'jwt', body: String.raw`eyJ[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*){0,2}`, cut: true },
];

/** Where a cut key ends: the text's end or a line break (in an escape view an escaped one is `\ `). */
const CUT_END = String.raw`(?=$|[\r\n]|\\ )`;
const KEY_PATTERNS: Array<{ label: string; pattern: RegExp }> = [
  // A PEM block runs to its END line or, cut, to the end of the text.
  { label: 'private_key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g },
  ...KEY_SHAPES.map(({ label, body, cut }) => ({ label, pattern: new RegExp(String.raw`\b${body}${cut ? CUT_END : ''}`, 'g') })),
];
/**
 * One scan that matches wherever one of the patterns would: most strings of a trace hold no secret
 * and then skip the replaces, which were the largest CPU cost of a run.
 */
const ANY_KEY = new RegExp(KEY_PATTERNS.map(({ pattern }) => `(?:${pattern.source})`).join('|'));

/**
 * `text` with the letters of each JSON escape turned into spaces (`\n` → `\ `, `\u001b` → `\     `),
 * the same length. Text is often redacted still escaped, once or twice (tool arguments are a JSON
 * string, an answer quotes a file), and there `\b` fails after an escape's letter: `\nsk-…` has no
 * word boundary before `sk`. In the view it has, and a match's offsets are the same in the text. Any
 * run of backslashes counts (`\\n` is `\n` escaped again). A lookbehind for escapes in every pattern
 * was 30x slower.
 */
function escapeView(text: string): string {
  return text.replace(/(\\+)(u[0-9A-Fa-f]{4}|[bfnrt])/g, (_whole, slashes: string, letters: string) => slashes + ' '.repeat(letters.length));
}

/** `text` with every match of `pattern` in `view` (the same length) replaced. */
function replaceThrough(text: string, view: string, pattern: RegExp, replacement: (match: RegExpMatchArray) => string): [string, string] {
  let out = '';
  let outView = '';
  let last = 0;
  for (const match of view.matchAll(pattern)) {
    const by = replacement(match);
    out += text.slice(last, match.index) + by;
    outView += view.slice(last, match.index) + by;
    last = match.index! + match[0].length;
  }
  return last === 0 ? [text, view] : [out + text.slice(last), outView + view.slice(last)];
}

const keyMark = (label: string, scheme: string | undefined) => (label === 'bearer_token' && scheme ? `${scheme} [REDACTED:${label}]` : `[REDACTED:${label}]`);

/** `text` with every key shape found in `view` (the text itself, or its escapeView) redacted. */
function redactKeys(text: string, view: string): string {
  if (!ANY_KEY.test(view)) return text;
  let out = text;
  for (const { label, pattern } of KEY_PATTERNS) [out, view] = replaceThrough(out, view, pattern, ([, scheme]) => keyMark(label, scheme));
  return out;
}

/**
 * `password = hunter2`, `"api_key": "..."`, also escaped (`\"password\": \"...\"`): the value after
 * a secret-sounding key. The value stops at a JSON escape, so a redacted value keeps the text around
 * it valid JSON.
 */
const ASSIGNED_SECRET =
  /((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|auth)[A-Za-z0-9_-]*(?:\\*["'])?\s*[:=]\s*(?:\\*["'])?)((?:[^\s"',;\\]|\\[^\s"'\\/bfnrtu]){6,})/gi;

const MAYBE_ASSIGNED = new RegExp(ASSIGNED_SECRET.source, ASSIGNED_SECRET.flags.replace('g', ''));

/**
 * Names the assignment rule would take for secrets that are not: the shell's working folders, and
 * names of where a secret is (`secret-path: config/.env` in a rule's reason, `token_file=…`): a
 * file name is not a secret, and hiding it hides which file was refused.
 */
const NOT_SECRET_NAMES = /^(?:OLD)?PWD$|[-_](?:paths?|files?|dirs?|names?)$/i;

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|PRIVATE|SESSION|COOKIE|DSN|CONN)/i;
const MIN_SECRET_CHARS = 6;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export interface Redactor {
  text(value: string): string;
  /**
   * A JSON-like value with every string redacted, object keys included. Copied only where something
   * was redacted: the parts that needed nothing are the input's own, so mutate neither afterwards.
   */
  deep<T>(value: T): T;
  /**
   * At most `max` characters of `value`, redacted before the cut, so a secret straddling the cut
   * cannot leave its first part behind.
   */
  preview(value: string, max: number): string;
}

/**
 * `target[name] = value` as an own field even for `__proto__`, which JSON.parse makes a plain key
 * of: an assignment would set the copy's prototype instead.
 */
function setOwn(target: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  else target[name] = value;
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
  // A value holding a quote or a backslash reads differently once JSON-escaped (once or twice).
  for (const literal of [...literals]) {
    const once = JSON.stringify(literal).slice(1, -1);
    if (once !== literal) literals.add(once).add(JSON.stringify(once).slice(1, -1));
  }
  // Longest first, so a secret that contains another is replaced whole.
  const ordered = [...literals].sort((a, b) => b.length - a.length);

  const text = (value: string): string => {
    let out = value;
    for (const literal of ordered) {
      if (out.includes(literal)) out = out.split(literal).join('[REDACTED:env]');
    }
    out = redactKeys(out, out);
    // Escaped text is read both ways: `\\rk_live_…` may be a backslash and a key, or `\r` and `k_…`.
    if (out.includes('\\')) out = redactKeys(out, escapeView(out));
    if (MAYBE_ASSIGNED.test(out)) out = out.replace(ASSIGNED_SECRET, (match: string, key: string, secret: string, offset: number, whole: string) => {
      if (secret.startsWith('[REDACTED')) return `${key}${secret}`;
      // The whole name the key is part of: `PWD=/home/me` (the shell's folder) is no secret.
      // (An escape's letter before it, the `n` of `\nPWD=`, is not part of the name.)
      const before = whole.slice(Math.max(0, offset - 64), offset);
      const lead = /[A-Za-z0-9_]*$/.exec(before)![0];
      const escaped = before.length > lead.length && before[before.length - lead.length - 1] === '\\' && /^[nrtbf]/.test(lead);
      const name = (escaped ? lead.slice(1) : lead) + /^[A-Za-z0-9_-]*/.exec(key)![0];
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

  // Copy on write: a part with nothing to redact is returned as it is, so the value a run redacts
  // again where it is written (a trial, its trace, a report row: already clean) costs no garbage.
  const deep = <T>(value: T): T => {
    if (typeof value === 'string') return text(value) as T;
    if (Array.isArray(value)) {
      let out: unknown[] | null = null;
      for (let i = 0; i < value.length; i++) {
        const redacted = deep(value[i]);
        if (out === null && redacted !== value[i]) out = value.slice(0, i);
        out?.push(redacted);
      }
      return (out ?? value) as T;
    }
    if (value && typeof value === 'object') {
      // Keys and an index, not Object.entries: a pair array per field was most of a clean walk's garbage.
      const source = value as Record<string, unknown>;
      const names = Object.keys(source);
      let out: Record<string, unknown> | null = null;
      for (let i = 0; i < names.length; i++) {
        const k = names[i]!;
        const v = source[k];
        const redactedKey = key(k);
        const redacted = deep(v);
        if (out === null && (redactedKey !== k || redacted !== v)) {
          out = {};
          for (let j = 0; j < i; j++) setOwn(out, names[j]!, source[names[j]!]);
        }
        if (out === null) continue;
        let name = redactedKey;
        // Two secret keys redact to the same name; neither value is dropped.
        for (let n = 2; name !== k && name in out; n++) name = `${redactedKey}#${n}`;
        setOwn(out, name, redacted);
      }
      return (out ?? value) as T;
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
