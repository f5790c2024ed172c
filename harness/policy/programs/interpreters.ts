import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ask, deny, type Decision } from '../decision.js';
import { inspectProgramText, type ProgramLanguage } from '../inlineProgram.js';
import type { ShellWord, SimpleCommand } from '../shellSyntax.js';
import { readWorkspaceText } from './readWorkspaceText.js';
import type { InspectContext, Inspection, ProgramCheck } from './types.js';

/** Options an interpreter answers by printing its version or help and exiting, before any program runs. */
const VERSION_OR_HELP = new Set(['--version', '-V', '--help', '-h']);
const PYTHON_FLAGS = /^-[bBdEhiIOqsSuvVxP]+$/;
const PYTHON_WITH_VALUE = new Set(['-W', '-X']);
/** Modules a coding agent runs with -m that only test, check or format. */
const PYTHON_TEST_MODULES = new Set(['pytest', 'unittest', 'doctest', 'py_compile', 'compileall', 'json.tool', 'tabnanny', 'pydoc', 'pstats']);
/** Modules that run a program they are given (a script the policy does not read, or pdb commands). */
const PYTHON_RUNNER_MODULES = new Set(['trace', 'cProfile', 'profile', 'pdb', 'bdb', 'code', 'runpy']);
const PYTHON_NETWORK_MODULES = /^(http\.server|smtpd|ftplib|telnetlib|webbrowser|xmlrpc\..*|pip|ensurepip|venv|site|asyncio)$/;

/**
 * `python3 -c CODE`, `python3 script.py`, `python3 - <<EOF`, `python3 -m pytest`: the program
 * text is found and read (inlineProgram); a program that comes from a pipe cannot be, and asks.
 */
export const inspectPython: ProgramCheck = (cmd, ctx) => {
  const args = cmd.args;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) return unprovable(args[i]!);
    if (v === '-c' || (v.startsWith('-c') && !v.startsWith('--'))) {
      const code = v === '-c' ? (args[i + 1]?.value ?? null) : v.slice(2);
      if (code === null) return unprovable(args[i + 1] ?? args[i]!);
      return { decisions: text('python', code, ctx), pathArgs: args.slice(v === '-c' ? i + 2 : i + 1) };
    }
    if (v === '-m' || (v.startsWith('-m') && !v.startsWith('--'))) {
      const module = v === '-m' ? (args[i + 1]?.value ?? null) : v.slice(2);
      if (module === null) return unprovable(args[i + 1] ?? args[i]!);
      const decisions: Decision[] = [];
      const moduleArgs = args.slice(v === '-m' ? i + 2 : i + 1);
      if (module === 'timeit') decisions.push(...timeitStatements(moduleArgs, ctx));
      else if (PYTHON_RUNNER_MODULES.has(module)) decisions.push(ask('python-module', `python -m ${module} runs a program the policy does not read (run the script itself instead)`));
      else if (PYTHON_NETWORK_MODULES.test(module)) decisions.push(deny('python-module', `python -m ${module} serves, installs or reaches the network`));
      else if (!PYTHON_TEST_MODULES.has(module)) decisions.push(ask('python-module', `python -m ${module} runs a module the policy does not know`));
      return { decisions, pathArgs: args.slice(v === '-m' ? i + 2 : i + 1), subcommand: `-m ${module}` };
    }
    if (PYTHON_WITH_VALUE.has(v)) {
      i++;
      continue;
    }
    if (v === '-') return stdinProgram('python', cmd, ctx, args.slice(i + 1));
    // python reads its options in order: these print and exit before any program runs.
    if (VERSION_OR_HELP.has(v)) return { decisions: [], subcommand: '--version' };
    if (v.startsWith('--')) {
      return { decisions: [ask('python-option', `python option ${v} is not known to be harmless`)] };
    }
    if (v.startsWith('-')) {
      if (!PYTHON_FLAGS.test(v)) return { decisions: [ask('python-option', `python option ${v} is not known to be harmless`)] };
      continue;
    }
    return scriptProgram('python', args[i]!, args.slice(i + 1), ctx);
  }
  return stdinProgram('python', cmd, ctx, []);
};

const NODE_SAFE_OPTIONS = /^--(no-warnings|no-deprecation|enable-source-maps|trace-warnings|trace-uncaught|stack-trace-limit=\d+|max-old-space-size=\d+|stack-size=\d+|experimental-vm-modules|experimental-strip-types|no-experimental-strip-types|experimental-test-coverage|test-reporter=[\w-]+|test-name-pattern=.*|test-only|input-type=(module|commonjs)|unhandled-rejections=\w+|pending-deprecation|throw-deprecation|frozen-intrinsics|disallow-code-generation-from-strings|version|help|check|test)$/;

/** `node -e CODE`, `node -p CODE`, `node script.js`, `node --test`: the same reading as python. */
export const inspectNode: ProgramCheck = (cmd, ctx) => {
  const args = cmd.args;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) return unprovable(args[i]!);
    if (['-e', '--eval', '-p', '--print'].includes(v) || /^--(eval|print)=/.test(v)) {
      const code = v.includes('=') ? v.slice(v.indexOf('=') + 1) : (args[i + 1]?.value ?? null);
      if (code === null) return unprovable(args[i + 1] ?? args[i]!);
      return { decisions: text('node', code, ctx), pathArgs: args.slice(v.includes('=') ? i + 1 : i + 2) };
    }
    if (v === '--test') return { decisions: [], pathArgs: args.slice(i + 1), subcommand: '--test' };
    if (VERSION_OR_HELP.has(v) || v === '-v') return { decisions: [], subcommand: '--version' };
    if (v === '-') return stdinProgram('node', cmd, ctx, args.slice(i + 1));
    if (/^--(inspect|inspect-brk|inspect-port|debug-port)/.test(v)) return { decisions: [deny('node-inspector', `node ${v} opens a debugging port`)] };
    if (v === '-r' || v === '--require' || v === '--import' || v === '--loader' || v === '--experimental-loader') {
      return { decisions: [ask('node-preload', `node ${v} loads a module before the program`)] };
    }
    if (v.startsWith('-')) {
      if (v === '-c' || NODE_SAFE_OPTIONS.test(v)) continue;
      return { decisions: [ask('node-option', `node option ${v} is not known to be harmless`)] };
    }
    return scriptProgram('node', args[i]!, args.slice(i + 1), ctx);
  }
  return stdinProgram('node', cmd, ctx, []);
};

/** `npm test`, `npm run NAME`: the workspace's own scripts, named for the policy's rules. */
export const inspectNpm: ProgramCheck = (cmd, ctx) => {
  const operands = cmd.args.filter((a) => !(a.value ?? '').startsWith('-'));
  const sub = operands[0]?.value ?? '';
  const canonical = ({ t: 'test', tst: 'test', 'run-script': 'run', rum: 'run', urn: 'run' } as Record<string, string>)[sub] ?? sub;
  if (canonical === 'run' && operands[1]) {
    const name = operands[1].value;
    const scripts = packageScripts(ctx.root);
    if (name === null || !Object.hasOwn(scripts, name)) {
      return { decisions: [ask('npm-script', `npm run ${operands[1].text}: no such script in the workspace's package.json`)], subcommand: canonical };
    }
  }
  // Every argument gets the path check: `--prefix ../elsewhere` would run another project's scripts.
  return { decisions: [], subcommand: canonical };
};

function packageScripts(root: string): Record<string, unknown> {
  try {
    const file = path.join(root, 'package.json');
    if ((statSync(file, { throwIfNoEntry: false })?.size ?? 0) > 1_000_000) return {};
    const json = JSON.parse(readFileSync(file, 'utf8')) as { scripts?: Record<string, unknown> };
    return json.scripts && typeof json.scripts === 'object' ? json.scripts : {};
  } catch {
    return {};
  }
}

/** `python -m timeit [-s SETUP] STATEMENT…`: every setup and statement is Python, read like `-c`. */
function timeitStatements(args: ShellWord[], ctx: InspectContext): Decision[] {
  const out: Decision[] = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) return [ask('unprovable-argument', `timeit argument ${args[i]!.text} has no fixed value`)];
    if (['-n', '-r', '-u', '--number', '--repeat', '--unit'].includes(v)) i++;
    else if (v === '-s' || v === '--setup') {
      const setup = args[++i]?.value;
      if (setup === null || setup === undefined) return [ask('unprovable-argument', 'timeit -s has no fixed value')];
      out.push(...text('python', setup, ctx));
    } else if (/^--setup=/.test(v) || /^-s./.test(v)) out.push(...text('python', v.replace(/^(--setup=|-s)/, ''), ctx));
    else if (!v.startsWith('-')) out.push(...text('python', v, ctx));
  }
  return out;
}

function text(language: ProgramLanguage, code: string, ctx: InspectContext): Decision[] {
  return inspectProgramText(language, code, ctx.checkPath);
}

function unprovable(arg: ShellWord): Inspection {
  return { decisions: [ask('unprovable-argument', `argument ${arg.text} has no fixed value`)] };
}

function scriptProgram(language: ProgramLanguage, script: ShellWord, rest: ShellWord[], ctx: InspectContext): Inspection {
  const file = script.value!;
  // node resolves a name like require does (`node hid` runs hid.js, hid/index.js, hid.node): a
  // name that is not itself a file is not what runs.
  if (language === 'node' && ctx.checkPath(file).decision === 'allow' && !ctx.folders.every((base) => statSync(path.resolve(base, file), { throwIfNoEntry: false })?.isFile())) {
    return { decisions: [ask('program-file', `node resolves ${file} to a file the policy did not read`)], pathArgs: rest };
  }
  const body = readWorkspaceText(file, ctx);
  if (typeof body !== 'string') return { decisions: [body], pathArgs: rest };
  // A zip application (`python3 app.pyz`), bytecode or a native addon carries code the reading cannot see.
  if (body.includes('\0') || body.includes('\uFFFD')) return { decisions: [ask('program-file', `${file} is not a text program (an archive or compiled code)`)], pathArgs: rest };
  return { decisions: text(language, body, ctx), pathArgs: rest };
}

function stdinProgram(language: ProgramLanguage, cmd: SimpleCommand, ctx: InspectContext, rest: ShellWord[]): Inspection {
  if (cmd.stdin === undefined) {
    return { decisions: [ask('interpreter-stdin', `${language} reads its program from standard input, which cannot be checked`)], pathArgs: rest };
  }
  return { decisions: text(language, cmd.stdin, ctx), pathArgs: rest };
}
