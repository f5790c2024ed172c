import path from 'node:path';
import { ask, deny, type Decision } from '../decision.js';
import type { ShellWord } from '../shellSyntax.js';
import type { InspectContext, Inspection, ProgramCheck } from './types.js';
import { readWorkspaceText } from './readWorkspaceText.js';

const SIMPLE_FLAGS = new Set(['n', 'E', 'r', 's', 'z', 'u', 'b']);
const LONG_FLAGS = new Set(['--quiet', '--silent', '--regexp-extended', '--separate', '--null-data', '--zero-terminated', '--unbuffered', '--posix', '--debug', '--sandbox', '--binary']);

/**
 * sed prints and edits text, but its script can also run commands (`e`, `s///e`) and write files
 * (`w`, `W`, `s///w`). The script is read command by command; anything not known to be harmless asks.
 */
export const inspectSed: ProgramCheck = (cmd, ctx) => {
  const decisions: Decision[] = [];
  const pathArgs: ShellWord[] = [];
  const scripts: string[] = [];
  let explicitScript = false;
  let positional = false;
  let backupSuffix: string | undefined;
  const args = cmd.args;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const v = arg.value;
    if (v === null) {
      decisions.push(ask('unprovable-argument', `sed argument ${arg.text} has no fixed value`));
      continue;
    }
    if (positional || v === '-' || !v.startsWith('-')) {
      // The first operand is the script unless -e or -f gave one.
      if (!explicitScript && scripts.length === 0) scripts.push(v);
      else pathArgs.push(arg);
      continue;
    }
    if (v === '--') {
      positional = true;
      continue;
    }
    if (v.startsWith('--')) {
      const [name, value] = v.includes('=') ? [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)] : [v, undefined];
      if (name === '--expression') {
        const script = value ?? args[++i]?.value ?? null;
        explicitScript = true;
        if (script === null) decisions.push(ask('unprovable-argument', 'sed --expression has no fixed value'));
        else scripts.push(script);
      } else if (name === '--file') {
        explicitScript = true;
        const file = value ?? args[++i]?.value ?? null;
        decisions.push(...scriptFile(file, ctx, scripts));
      } else if (name === '--in-place') {
        if (value) backupSuffix = value;
      } else if (name === '--line-length') continue;
      else if (name === '--follow-symlinks') decisions.push(deny('sed-follows-symlinks', 'sed --follow-symlinks edits through links, which may lead out of the workspace'));
      else if (!LONG_FLAGS.has(name)) decisions.push(ask('sed-option', `sed option ${name} is not known to be harmless`));
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const flag = v[j]!;
      if (SIMPLE_FLAGS.has(flag)) continue;
      if (flag === 'i') {
        // -i[SUFFIX]: edits the named files in place (path-checked); the backup goes where SUFFIX says
        if (j < v.length - 1) backupSuffix = v.slice(j + 1);
        break;
      }
      if (flag === 'l') {
        if (j === v.length - 1) i++;
        break;
      }
      if (flag === 'e' || flag === 'f') {
        explicitScript = true;
        const rest = v.slice(j + 1);
        const value = rest !== '' ? rest : (args[++i]?.value ?? null);
        if (flag === 'e') {
          if (value === null) decisions.push(ask('unprovable-argument', 'sed -e has no fixed value'));
          else scripts.push(value);
        } else decisions.push(...scriptFile(value, ctx, scripts));
        break;
      }
      decisions.push(ask('sed-option', `sed option -${flag} is not known to be harmless`));
      break;
    }
  }
  for (const script of scripts) decisions.push(...sedScript(script, ctx));
  if (backupSuffix !== undefined) decisions.push(...backupChecks(backupSuffix, pathArgs, ctx));
  return { decisions, pathArgs } satisfies Inspection;
};

/**
 * GNU sed's backup name: FILE+SUFFIX, or SUFFIX with each `*` replaced by the file's name — and a
 * SUFFIX with a `/` puts the backup in another folder (`-i'/tmp/*'` copies every edited file out of
 * the workspace). Each backup is checked like a path, from the working folder and from the file's.
 */
function backupChecks(suffix: string, files: ShellWord[], ctx: InspectContext): Decision[] {
  if (!suffix.includes('/')) return [];
  const out: Decision[] = [];
  for (const file of files) {
    if (file.value === null) continue;
    const backup = suffix.includes('*') ? suffix.replaceAll('*', path.basename(file.value)) : `${file.value}${suffix}`;
    for (const candidate of [backup, path.join(path.dirname(file.value), backup)]) {
      const decided = ctx.checkPath(candidate);
      if (decided.decision !== 'allow') out.push({ ...decided, rule: decided.rule, reason: `sed -i backup ${candidate}: ${decided.reason}` });
    }
  }
  if (files.length === 0) out.push(ask('sed-backup', `sed -i${suffix} names a backup folder for files it cannot see`));
  return out;
}

function scriptFile(file: string | null, ctx: InspectContext, scripts: string[]): Decision[] {
  if (file === null) return [ask('unprovable-argument', 'sed -f has no fixed value')];
  const text = readWorkspaceText(file, ctx);
  if (typeof text !== 'string') return [text];
  scripts.push(text);
  return [];
}

/** Reads a sed script: addresses, then one command each; `e`, `w`, `W` and the `e`/`w` flags refuse. */
export function sedScript(script: string, ctx: InspectContext): Decision[] {
  const out: Decision[] = [];
  let i = 0;
  const n = script.length;
  const skipBlank = () => {
    while (i < n && /[\s;]/.test(script[i]!)) i++;
  };
  const toLineEnd = () => {
    const start = i;
    while (i < n && script[i] !== '\n') {
      if (script[i] === '\\' && i + 1 < n) i++;
      i++;
    }
    return script.slice(start, i);
  };
  /** Reads up to an unescaped delimiter; in a regex, brackets protect the delimiter. */
  const delimited = (delim: string, regex: boolean): boolean => {
    while (i < n) {
      const c = script[i]!;
      if (c === '\\') i += 2;
      else if (c === delim) {
        i++;
        return true;
      } else if (regex && c === '[') {
        i++;
        if (script[i] === '^') i++;
        if (script[i] === ']') i++;
        while (i < n && script[i] !== ']') i++;
        i++;
      } else if (c === '\n' && delim !== '\n') return false;
      else i++;
    }
    return false;
  };
  const address = (): boolean => {
    const c = script[i];
    if (c === undefined) return true;
    if (/[0-9$]/.test(c)) {
      while (i < n && /[0-9$~]/.test(script[i]!)) i++;
    } else if (c === '/' || c === '\\') {
      let delim = '/';
      if (c === '\\') {
        delim = script[i + 1] ?? '';
        i++;
      }
      i++;
      if (!delimited(delim, true)) return false;
      while (i < n && /[IM]/.test(script[i]!)) i++;
    }
    return true;
  };
  let guard = 0;
  while (guard++ < 10_000) {
    skipBlank();
    if (i >= n) break;
    if (script[i] === '#') {
      toLineEnd();
      continue;
    }
    if (!address()) return [...out, ask('sed-unreadable', 'sed script has an unterminated address')];
    if (script[i] === ',') {
      i++;
      if (script[i] === '+' || script[i] === '~') i++;
      if (!address()) return [...out, ask('sed-unreadable', 'sed script has an unterminated address')];
    }
    while (i < n && /[ \t!]/.test(script[i]!)) i++;
    const c = script[i++];
    if (c === undefined) break;
    if ('{}pPdDnNgGhHxz=Fl'.includes(c)) {
      if (c === 'l') while (i < n && /[0-9]/.test(script[i]!)) i++;
      continue;
    }
    if ('qQ'.includes(c)) {
      while (i < n && /[ \t0-9]/.test(script[i]!)) i++;
      continue;
    }
    if (':btTv'.includes(c)) {
      while (i < n && script[i] !== '\n' && script[i] !== ';') i++;
      continue;
    }
    if ('aic'.includes(c)) {
      toLineEnd();
      continue;
    }
    if (c === 'r' || c === 'R') {
      const file = toLineEnd().trim();
      if (file !== '') out.push(ctx.checkPath(file));
      continue;
    }
    if (c === 'w' || c === 'W') {
      out.push(deny('sed-writes-file', `sed ${c} writes to a file named in its script`));
      toLineEnd(); // the file name runs to the end of the line
      continue;
    }
    if (c === 'e') {
      out.push(deny('sed-executes', 'sed e runs a shell command'));
      continue;
    }
    if (c === 's' || c === 'y') {
      const delim = script[i++];
      if (delim === undefined || delim === '\n' || delim === '\\') return [...out, ask('sed-unreadable', `sed ${c} command has no delimiter`)];
      if (!delimited(delim, c === 's') || !delimited(delim, false)) return [...out, ask('sed-unreadable', `sed ${c} command is unterminated`)];
      if (c === 's') {
        while (i < n && /[gpiImM0-9ew]/.test(script[i]!)) {
          const flag = script[i++]!;
          if (flag === 'e') out.push(deny('sed-executes', 'the s///e flag runs the pattern space as a shell command'));
          if (flag === 'w') {
            out.push(deny('sed-writes-file', 'the s///w flag writes to a file'));
            toLineEnd();
          }
        }
      }
      continue;
    }
    out.push(ask('sed-unknown-command', `sed command ${JSON.stringify(c)} is not known to be harmless`));
    break;
  }
  return out;
}
