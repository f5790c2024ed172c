import { RE2JS } from 're2js';

/**
 * Regular expressions that come from input (suites, policies, --grep) run in a linear-time engine
 * (RE2, via the pure-JS re2js), so no pattern can hang a run with catastrophic backtracking. RE2
 * has no lookaround and no backreferences; such a pattern is refused when its file is loaded.
 */
export interface SafeRegex {
  readonly source: string;
  test(text: string): boolean;
}

const compiled = new Map<string, SafeRegex>();
const CACHE_LIMIT = 1000;

/** The compiled pattern; throws a SyntaxError that says what RE2 refused. */
export function safeRegex(source: string): SafeRegex {
  const hit = compiled.get(source);
  if (hit) return hit;
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (error) {
    const detail = (error as Error).message.replace(/^error parsing regexp: /, '');
    const hint = /unsupported Perl syntax|invalid escape|invalid named capture/.test(detail) ? ' (patterns run in RE2 syntax, which has no lookaround or backreferences)' : '';
    throw new SyntaxError(`not a usable regular expression: ${detail}${hint}`);
  }
  const regex: SafeRegex = { source, test: (text) => re.matcher(text).find() };
  if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value!);
  compiled.set(source, regex);
  return regex;
}

/** Null when `source` compiles, else what is wrong with it. */
export function regexProblem(source: string): string | null {
  try {
    safeRegex(source);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The 1-based line of a JSON file's text where a string value first appears (for error messages). */
export function lineOfJsonString(text: string, value: string): number | null {
  const at = text.indexOf(JSON.stringify(value));
  return at < 0 ? null : text.slice(0, at).split('\n').length;
}
