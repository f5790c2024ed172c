import { readFileSync, statSync } from 'node:fs';
import { createRedactor } from '../../src/schema/redact.js';

/** Files that show what a secret file looks like: `.env.example`, `config.sample`, `secrets.template`. */
const EXAMPLE_NAME = /\.(example|sample|template)$/i;
/** Values that stand for a secret without being one. */
const PLACEHOLDER = /^(|<[^<>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|[x*.#-]+|(your|my|some)[-_ ].*|.*\b(change[-_ ]?me|replace[-_ ]?me|placeholder|example|dummy|fake|todo|redacted)\b.*)$/i;
const ASSIGNMENT = /^(\s*(?:export\s+)?[A-Za-z_][\w.-]*\s*[=:]\s*)(["']?)(.*?)\2\s*$/;
const MAX_EXAMPLE_BYTES = 64 * 1024;
const redactor = createRedactor({});

/**
 * Whether a file named like an example holds placeholders only: every assigned value a placeholder
 * (and no key pattern inside it), and nothing else in the file that redaction would hide. An example
 * file with a real key in it is a secret like any other.
 */
export function holdsPlaceholdersOnly(absolute: string): boolean {
  if (!EXAMPLE_NAME.test(absolute)) return false;
  const stat = statSync(absolute, { throwIfNoEntry: false });
  if (!stat?.isFile() || stat.size > MAX_EXAMPLE_BYTES) return false;
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch {
    return false;
  }
  // An assignment of a placeholder says nothing secret: it is left out, and the rest is judged as a whole.
  const rest = text
    .split('\n')
    .filter((line) => {
      const m = ASSIGNMENT.exec(line);
      return !(m && PLACEHOLDER.test(m[3]!) && redactor.text(m[3]!) === m[3]);
    })
    .join('\n');
  return redactor.text(rest) === rest;
}
