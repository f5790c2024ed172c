import { ask, deny, type Decision } from '../decision.js';
import type { ShellWord } from '../shellSyntax.js';
import { readWorkspaceText } from './readWorkspaceText.js';
import type { Inspection, ProgramCheck } from './types.js';

const WITH_VALUE = new Set(['-F', '-v', '--field-separator', '--assign']);
const HARMLESS = new Set(['-b', '-c', '-P', '-r', '-s', '-S', '-t', '-V', '-N', '-M', '-n', '-O', '--posix', '--traditional', '--sandbox', '--characters-as-bytes', '--re-interval', '--no-optimize', '--optimize', '--bignum', '--use-lc-numeric', '--version', '--lint']);

/**
 * awk computes and prints, but its program can also run commands (`system()`, `print | "cmd"`,
 * `"cmd" | getline`), write files (`print > file`), read files (`getline < file`) and load
 * extensions (`-l`, `@load`). The program text is read for each.
 */
export const inspectAwk: ProgramCheck = (cmd, ctx) => {
  const decisions: Decision[] = [];
  const pathArgs: ShellWord[] = [];
  const programs: string[] = [];
  let explicitProgram = false;
  let operands = false;
  const args = cmd.args;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const v = arg.value;
    if (v === null) {
      decisions.push(ask('unprovable-argument', `awk argument ${arg.text} has no fixed value`));
      continue;
    }
    if (operands || v === '-' || !v.startsWith('-')) {
      if (!explicitProgram && programs.length === 0) programs.push(v);
      else if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) pathArgs.push(arg); // `var=value` operands are assignments
      continue;
    }
    if (v === '--') {
      operands = true;
      continue;
    }
    const name = v.startsWith('--') ? v.split('=')[0]! : v.slice(0, 2);
    const attached = v.startsWith('--') ? (v.includes('=') ? v.slice(v.indexOf('=') + 1) : null) : v.length > 2 ? v.slice(2) : null;
    if (WITH_VALUE.has(name)) {
      if (attached === null) i++;
    } else if (name === '-f' || name === '--file' || name === '-e' || name === '--source') {
      explicitProgram = true;
      const value = attached ?? args[++i]?.value ?? null;
      if (value === null) decisions.push(ask('unprovable-argument', `awk ${name} has no fixed value`));
      else if (name === '-e' || name === '--source') programs.push(value);
      else {
        const text = readWorkspaceText(value, ctx);
        if (typeof text === 'string') programs.push(text);
        else decisions.push(text);
      }
    } else if (name === '-l' || name === '--load') {
      decisions.push(deny('awk-loads-extension', 'awk -l loads a compiled extension'));
    } else if (!HARMLESS.has(name)) {
      decisions.push(ask('awk-option', `awk option ${name} is not known to be harmless`));
    }
  }
  for (const program of programs) decisions.push(...awkProgram(program));
  return { decisions, pathArgs } satisfies Inspection;
};

export function awkProgram(program: string): Decision[] {
  const out: Decision[] = [];
  // String contents cannot run anything; blank them so `print "a | b > c"` reads as text.
  const strings = program.replace(/"(?:\\.|[^"\\\n])*"/g, '""');
  // A regular expression literal where an operand is due (program start, after { } ; ( , ! ~ && ||) is
  // text too; a `/` after an operand is division and is left alone.
  const code = strings.replace(/(^|[{};(,!~\n]|&&|\|\|)(\s*)\/(?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n[])*\//g, '$1$2//');
  if (/\bsystem\s*\(/.test(code)) out.push(deny('awk-runs-command', 'awk system() runs a shell command'));
  if (/\|&|\|\s*""|\|\s*[A-Za-z_$(]*\s*getline|\|\s*getline/.test(code)) out.push(deny('awk-runs-command', 'awk pipes to or from a command'));
  else if (/(^|[^|])\|([^|]|$)/.test(code)) out.push(ask('awk-pipe', 'awk program has a pipe the policy cannot tell from a regular expression'));
  if (/@[A-Za-z_]\w*\s*\(/.test(code)) out.push(ask('awk-indirect-call', 'awk calls a function named at run time'));
  if (/@load\b/.test(code)) out.push(deny('awk-loads-extension', 'awk @load loads a compiled extension'));
  if (/@include\b/.test(code)) out.push(ask('awk-include', 'awk @include reads another program'));
  // `ARGV[1] = "/etc/passwd"`, `split(".env", ARGV)`: the files awk reads become whatever the program says.
  if (/\b(ARGV|ARGC)\b/.test(code)) out.push(ask('awk-reads-file', 'awk program uses ARGV or ARGC, which decide the files it reads'));
  if (/\bgetline\b[^;{}\n]*</.test(code)) out.push(ask('awk-reads-file', 'awk getline < reads a file named in its program'));
  if (/\bprintf?\b[^;{}\n]*>/.test(code)) out.push(ask('awk-writes-file', 'awk print > writes a file named in its program'));
  return out;
}
