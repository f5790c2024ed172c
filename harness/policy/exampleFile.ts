import { readFileSync, statSync } from 'node:fs';
import { patternRedactor } from '../../src/schema/redact.js';

/** Files a project ships as a template of its secrets (`.env.example`, `config.sample`, `secrets.template`). */
const EXAMPLE_NAME = /\.(?:example|sample|template)$/i;
/** A larger file is not read to judge it: it stays a secret. */
export const MAX_EXAMPLE_BYTES = 64 * 1024;

/** `KEY=value`, `export KEY="value"`, `key: value`: one setting on a line. */
const SETTING = /^\s*(?:export\s+)?[A-Za-z0-9_.-]+\s*[:=][ \t]*(["']?)(.*?)\1[ \t]*(?:#.*)?$/;
/** What a template holds where the secret goes: nothing, `<...>`, `${...}`, `xxxx`, "your-key-here", "changeme". */
const PLACEHOLDER = /^(?:|<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|(.)\1*|.*(?:your|change|replace|example|placeholder|dummy|sample|fake|todo|here|insert|redacted|xxx).*)$/i;

export function isExampleFile(name: string): boolean {
  return EXAMPLE_NAME.test(name);
}

/**
 * Whether an example file's content holds only placeholders, so that it is no secret although its
 * name matches a secret path (`.env.*`). A value any redaction pattern recognises (an `sk-` key, an
 * AWS key id, a PEM block, a `password = ...` that is not a placeholder) makes it a secret.
 */
export function holdsOnlyPlaceholders(content: string): boolean {
  if (content.includes('\0')) return false;
  // Settings whose value is a placeholder go; whatever is left must hold nothing a pattern knows.
  const rest = content
    .split('\n')
    .filter((line) => {
      const setting = SETTING.exec(line);
      // A value a key pattern knows (`sk_live_...here`) is a key, whatever words it holds.
      return !(setting && PLACEHOLDER.test(setting[2]!) && patternRedactor.text(setting[2]!) === setting[2]);
    })
    .join('\n');
  return patternRedactor.text(rest) === rest;
}

/** Whether a file on disk is a secret-named template (`.env.example`) holding only placeholders, so no secret. */
export function isPublicExampleFile(file: string): boolean {
  if (!isExampleFile(file)) return false;
  try {
    const stat = statSync(file);
    return stat.isFile() && stat.size <= MAX_EXAMPLE_BYTES && holdsOnlyPlaceholders(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}
