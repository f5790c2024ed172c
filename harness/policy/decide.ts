import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { Policy, ShellRule } from '../../src/schema/policy.js';
import { safeRegex } from '../../src/schema/safeRegex.js';
import { isSecretPath, resolveInWorkspace, secretUnder } from '../sandbox/workspacePaths.js';
import { allow, ask, deny, strictest, type Decision, type SandboxKind } from './decision.js';
import { commandFolders, folderChange } from './currentFolder.js';
import { isPublicExampleFile } from './exampleFile.js';
import { optionWords, spellOutOptions } from './programs/longOptions.js';
import { programCheck } from './programs/registry.js';
import type { InspectContext, Inspection } from './programs/types.js';
import { analyzeShell, type ShellRedirect, type ShellWord, type SimpleCommand } from './shellSyntax.js';

/**
 * The permission policy: a function from (policy, tool call, workspace, sandbox) to a decision that
 * names the rule behind it. It reads the file system only to resolve paths (symlinks) and to read
 * the program text a command names; it runs nothing.
 */
export { strictest, type Decision, type SandboxKind } from './decision.js';

const SYSTEM_BIN = /^\/(usr\/)?(local\/)?s?bin\/[^/]+$/;
const HARMLESS_DEVICES = new Set(['/dev/null', '/dev/stdin', '/dev/stdout', '/dev/stderr']);
/** Assignments that change what a program loads or runs: never allowed in front of a command. */
const HIJACKING_VARIABLE = /^(LD_|DYLD_|BASH_|GIT_)|^(PATH|ENV|IFS|PS4|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|GLOBIGNORE|HOME|CDPATH|PAGER|EDITOR|VISUAL|NODE_OPTIONS|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONINSPECT|PERL5OPT|RUBYOPT|TRACEGATE_WORKSPACE)$/;
/** Wrapper options that change the environment or the program lookup the harness set up for git. */
const ENVIRONMENT_CHANGING = /^(-[A-Za-z]*[iuSCp][A-Za-z]*|--ignore-environment|--unset(=.*)?|--split-string(=.*)?|--chdir(=.*)?|-)$/;

/** What one decision needs to know besides the command. */
interface ShellContext {
  policy: Policy;
  root: string;
  sandbox: SandboxKind;
  globs: { outward: string[] | undefined };
  /** The folders the command may run in (the workspace, folders it may `cd` into): relative paths are checked from each. */
  folders: string[];
  /** How many times the whole command line names each workspace path (arguments and redirects). */
  named: Map<string, number>;
  /** Names starting with `-` the command line may create as files (`touch -- -x`, `> ./-x`). */
  dashNames: string[];
}

export interface ToolCallForPolicy {
  tool: string;
  args: Record<string, unknown>;
}

export interface DecideOptions {
  /** The sandbox the command will run in (default: the plain process group). */
  sandbox?: SandboxKind;
  /** The tool comes from an MCP server: with no policy entry of its own it gets `mcp_tools`. */
  mcp?: boolean;
}

export async function decideToolCall(policy: Policy, call: ToolCallForPolicy, root: string, options: DecideOptions = {}): Promise<Decision> {
  const toolPolicy = policy.tools[call.tool] ?? (options.mcp ? { risk: 'high' as const, decision: policy.mcp_tools } : undefined);
  if (!toolPolicy) {
    const d = policy.unknown_tool === 'allow' ? allow('unknown-tool', 'policy allows unknown tools', 'high') : deny('unknown-tool', `no policy for tool ${call.tool}`, 'UNKNOWN_TOOL');
    return d;
  }
  const toolDecision: Decision =
    toolPolicy.decision === 'allow'
      ? allow(`tool:${call.tool}`, `${call.tool} is allowed`, toolPolicy.risk)
      : toolPolicy.decision === 'deny'
        ? { ...deny(`tool:${call.tool}`, `${call.tool} is denied by the policy`, 'PERMISSION_DENIED'), risk: toolPolicy.risk }
        : ask(`tool:${call.tool}`, `${call.tool} needs approval`, toolPolicy.risk);

  const decisions = [toolDecision];
  if (typeof call.args['path'] === 'string') decisions.push(decidePath(policy, call.args['path'], root, 'file'));
  if (call.tool === 'run_shell' && typeof call.args['command'] === 'string') {
    decisions.push(await decideShell(policy, call.args['command'], root, options.sandbox));
  }
  // An allowed tool is allowed for its arguments: the rule that allowed those is the one to record.
  const decided = toolDecision.decision === 'allow' && decisions.length > 1 ? strictest(decisions.slice(1)) : strictest(decisions);
  return decided.decision === 'allow' ? { ...decided, risk: toolPolicy.risk === 'high' ? decided.risk : toolPolicy.risk } : decided;
}

function decidePath(policy: Policy, p: string, root: string, use: 'file' | 'shell'): Decision {
  if (use === 'shell' && HARMLESS_DEVICES.has(p)) return allow('device', `${p} is harmless`);
  const checked = resolveInWorkspace(root, p);
  if (!checked.inside) return deny('path-outside-workspace', checked.reason, 'PATH_OUTSIDE_WORKSPACE');
  // The name as written and the file it resolves to: `.env` may be a link to `config/local.env`.
  const secret = isSecretPath(root, checked.absolute, policy.secret_paths) ?? isSecretPath(root, path.resolve(root, p), policy.secret_paths);
  if (secret && isPublicExampleFile(checked.absolute)) return allow('example-file', `${p} is an example file that holds placeholders only`);
  if (secret) return deny('secret-path', `${p} matches the secret path pattern ${secret}`, 'PERMISSION_DENIED');
  return allow('path-inside-workspace', `${p} is inside the workspace`);
}

export async function decideShell(policy: Policy, command: string, root: string, sandbox: SandboxKind = 'process'): Promise<Decision> {
  if (command.length > policy.shell.max_command_chars) {
    return deny('command-too-long', `command is longer than ${policy.shell.max_command_chars} characters`);
  }
  const analysis = await analyzeShell(command);
  const decisions: Decision[] = analysis.unprovable.map((u) =>
    ['substitution', 'expansion', 'heredoc'].includes(u.construct)
      ? ask(`unprovable-${u.construct}`, `${u.detail}: its value cannot be checked before it runs`)
      : deny(`unprovable-${u.construct}`, u.detail),
  );
  const folders = [root, ...cdTargets(root, analysis.commands)];
  // Where the shell's order makes a command's folder certain, its paths are read from there alone.
  const certain = commandFolders(root, analysis.commands);
  const named = namedPaths(root, analysis, (cmd) => certain.get(cmd) ?? folders, folders);
  const ctx: ShellContext = { policy, root, sandbox, globs: { outward: undefined }, folders, named, dashNames: dashNamedFiles(analysis) };
  for (const redirect of analysis.redirects) decisions.push(decideRedirect(ctx, redirect));
  for (const cmd of analysis.commands) {
    const folders = certain.get(cmd);
    decisions.push(decideCommand(folders ? { ...ctx, folders } : ctx, cmd));
  }
  return strictest(decisions);
}

/**
 * `cd sub && cat link` reads `sub/link`, not `link`: every folder the command may change into (inside
 * the workspace; `cd` itself gets the path check) becomes a place relative paths are also checked from.
 */
function cdTargets(root: string, commands: SimpleCommand[]): string[] {
  const cwds: string[] = [];
  for (const found of commands) {
    const cmd = folderChange(found);
    if (!cmd || !['cd', 'pushd'].includes(cmd.program?.value ?? '')) continue;
    const word = cmd.args.find((a) => a.value !== null && !a.value.startsWith('-'));
    const target = word?.value;
    if (!target) continue;
    for (const base of [root, ...cwds]) {
      // `cd s*b` goes where the glob matches now, as bash expands it.
      const candidates = word.glob ? globMatches(base, target.split('/').filter((s) => s !== '' && s !== '.')).slice(0, 16) : [path.resolve(base, target)];
      for (const candidate of candidates) {
        const checked = resolveInWorkspace(root, candidate);
        if (checked.inside && checked.absolute !== root && !cwds.includes(checked.absolute) && cwds.length < 16) cwds.push(checked.absolute);
      }
    }
  }
  return cwds;
}

/**
 * Every path the command line names, counted: a program file it also names elsewhere (`cat > t.py
 * <<EOF … EOF; python3 t.py`) may be written before it runs, so what is on disk now proves nothing.
 */
function namedPaths(
  root: string,
  analysis: { commands: SimpleCommand[]; redirects: ShellRedirect[] },
  foldersOf: (cmd: SimpleCommand) => readonly string[],
  allFolders: readonly string[],
): Map<string, number> {
  const named = new Map<string, number>();
  // Each name is read from the folders its command runs in (`cp x src/a.py && cd src && python3 a.py`
  // names src/a.py twice), and counts once per file it may be.
  const words: Array<{ word: ShellWord; bases: readonly string[] }> = [
    ...analysis.redirects.map((r) => ({ word: r.target, bases: allFolders })),
    ...analysis.commands.flatMap((c) => [...c.args, ...c.redirects.map((r) => r.target)].map((word) => ({ word, bases: foldersOf(c) }))),
  ];
  // `cp a.py src/` names src/a.py too: a copy or move into a folder writes FOLDER/NAME.
  for (const c of analysis.commands) {
    if (!['cp', 'mv', 'install', 'ln'].includes(c.program?.value ?? '')) continue;
    const operands = c.args.map((a) => a.value).filter((v): v is string => !!v && !v.startsWith('-'));
    const dest = operands.at(-1);
    if (dest === undefined || operands.length < 2) continue;
    for (const source of operands.slice(0, -1)) words.push({ word: { value: path.join(dest, path.basename(source)), text: source, glob: false }, bases: foldersOf(c) });
  }
  for (const { word, bases } of words) {
    const v = word.value;
    if (!v) continue;
    const keys = new Set<string>();
    for (const candidate of [v, v.slice(v.indexOf('=') + 1)]) {
      for (const base of bases) keys.add(canonicalPath(root, path.resolve(base, candidate)));
      if (!v.includes('=')) break;
    }
    for (const key of keys) named.set(key, (named.get(key) ?? 0) + 1);
  }
  return named;
}

/**
 * Names starting with `-` that the command line may give a file: words a program cannot read as
 * options (`./--x`, a word after `--`) and redirect targets. A glob run later may expand to them.
 */
function dashNamedFiles(analysis: { commands: SimpleCommand[]; redirects: ShellRedirect[] }): string[] {
  const names: string[] = [];
  const add = (v: string | null) => {
    const base = v === null ? '' : path.basename(v);
    if (base.startsWith('-')) names.push(base);
  };
  for (const r of analysis.redirects) if (r.kind !== 'fd') add(r.target.value);
  for (const c of analysis.commands) {
    for (const r of c.redirects) if (r.kind !== 'fd') add(r.target.value);
    let afterDashes = false;
    for (const a of c.args) {
      if (a.value === '--' && !afterDashes) afterDashes = true;
      else if (afterDashes || a.value?.includes('/')) add(a.value);
    }
  }
  return names;
}

/**
 * bash expands a glob before the program parses its options, so `sort *` in a folder holding a file
 * named `--compress-program=sh` is `sort --compress-program=sh …`. A glob that can begin a word with
 * a name of the folder, standing where the program still reads options (before `--`), is expanded
 * against the folders the command runs in now (and the dash names the command itself may create):
 * a match that starts with `-` asks, with the way out (`./*`, or `--` first).
 */
function globsAsOptions(ctx: ShellContext, program: string, args: ShellWord[]): Decision[] {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const v = arg.value;
    if (v === '--') return [];
    // `-e --`, `-o FILE`: an option's value is no end of options.
    if (!arg.glob && v !== null && v.startsWith('-')) i += optionWords(program, v) - 1;
    if (!arg.glob || v === null || !/^[*?[]/.test(v)) continue;
    const first = v.split('/')[0]!;
    const matcher = globSegmentMatcher(first);
    const now = ctx.folders.flatMap((base) => globMatches(base, [first]).map((m) => path.basename(m)));
    const hit = [...now, ...ctx.dashNames].find((n) => n.startsWith('-') && (matcher === null || matcher.test(n)));
    if (hit !== undefined) {
      return [ask('glob-as-option', `${program} ${v}: the glob expands to ${hit}, which ${program} would read as an option (write ./${v} or put -- before it)`, 'medium')];
    }
  }
  return [];
}

/** One glob segment as a regular expression (null when it cannot be read). */
function globSegmentMatcher(segment: string): RegExp | null {
  const body = segment.replace(/\[!/g, '[^').replace(/[.+^${}()|\\]/g, (c) => (c === '^' ? c : `\\${c}`)).replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
  try {
    return new RegExp(`^${body}$`);
  } catch {
    return null;
  }
}

/** One name for one file: `lnk/a.py` and `src/a.py` are the same file when `lnk` links to `src`. */
function canonicalPath(root: string, absolute: string): string {
  const checked = resolveInWorkspace(root, absolute);
  return checked.inside ? checked.absolute : absolute;
}

/** A path a shell command names, checked from the workspace and from every folder it may run in. */
function decideShellPath(ctx: ShellContext, p: string, cwd?: string): Decision {
  if (path.isAbsolute(p) || p.startsWith('~')) return decidePath(ctx.policy, p, ctx.root, 'shell');
  // `git -C DIR` moves from the folder the command is in (`cd src && git -C lib …` is src/lib).
  const bases = [...new Set([...ctx.folders, ...(cwd !== undefined ? ctx.folders.map((base) => path.resolve(base, cwd)) : [])])];
  const decided = bases.map((base) => (base === ctx.root ? decidePath(ctx.policy, p, ctx.root, 'shell') : decidePath(ctx.policy, path.resolve(base, p), ctx.root, 'shell')));
  const refused = decided.findIndex((d) => d.decision !== 'allow');
  if (refused < 0) return decided[0]!;
  const base = bases[refused]!;
  return base === ctx.root ? decided[refused]! : { ...decided[refused]!, reason: `${p} from ${path.relative(ctx.root, base)}: ${decided[refused]!.reason}` };
}

function decideRedirect(ctx: ShellContext, redirect: ShellRedirect): Decision {
  if (redirect.kind === 'fd') return allow('redirect-fd', `${redirect.op}${redirect.target.text}`);
  if (redirect.target.value === null) {
    return ask('unprovable-redirect', `redirect target ${redirect.target.text} has no fixed value`);
  }
  const decided = decideShellPath(ctx, redirect.target.value);
  return decided.decision === 'allow' ? decided : { ...decided, reason: `${redirect.kind} redirect: ${decided.reason}` };
}

function decideCommand(ctx: ShellContext, cmd: SimpleCommand, envChanged = false): Decision {
  const { policy, root } = ctx;
  const decisions: Decision[] = cmd.redirects.map((r) => decideRedirect(ctx, r));
  // `for NAME in …` and `printf -v NAME` assign too: an exported PATH or GIT_CONFIG_COUNT changed that way
  // would run a workspace `git` or undo the harness's git configuration for the rest of the command.
  const assigned = [...cmd.assignments, ...builtinAssignments(cmd)];
  for (const { name, value } of assigned) {
    if (HIJACKING_VARIABLE.test(name)) decisions.push(deny('env-hijack', `${name}= changes what programs load or run`));
    else if (!policy.shell.safe_assignments.includes(name) && cmd.program?.value !== 'for') {
      decisions.push(ask('env-assignment', `sets ${name}${value ? `=${value.text}` : ''}`, 'medium'));
    }
  }
  const program = cmd.program?.value;
  if (program === undefined || program === null) {
    decisions.push(deny('unprovable-program', `program name ${cmd.program?.text ?? '(none)'} has no fixed value`));
    return strictest(decisions);
  }
  if (program === '') return strictest(decisions); // a bare assignment

  let name = program;
  if (program.includes('/')) {
    if (!SYSTEM_BIN.test(program)) {
      decisions.push(decidePath(policy, program, root, 'shell'));
      decisions.push(ask('workspace-executable', `runs ${program}, a file rather than a known program`));
      return strictest(decisions);
    }
    name = path.basename(program);
    if (name === 'git') decisions.push(ask('git-outside-harness', `${program} bypasses the harness's git, which switches off the workspace's programs`));
  }
  if (name === 'git' && envChanged) decisions.push(deny('git-outside-harness', 'git under a wrapper that changes its environment or program lookup runs without the harness\'s safe configuration'));
  // Long options as the program's own parser reads them (`sort --comp=sh` is `--compress-program=sh`):
  // every rule and program check below meets full names only.
  const spelled = spellOutOptions(name, cmd.args);
  for (const a of spelled.ambiguous) decisions.push(ask('ambiguous-option', `${name} ${a.written} could be ${a.candidates.join(' or ')}: write the option in full`, 'medium'));
  cmd = { ...cmd, args: spelled.args };

  if (policy.shell.wrappers.includes(name)) {
    const inner = unwrap(name, cmd.args);
    if (name === 'env' && cmd.args.some((a) => /^(-[A-Za-z]*S|--split-string(=|$))/.test(a.value ?? ''))) {
      decisions.push(ask('env-split-string', 'env -S splits a string into the command it runs, which is not read word by word'));
    }
    if (!inner.program) {
      decisions.push(deny('wrapper-without-command', `${name} without a command to run`));
      return strictest(decisions);
    }
    const changes = envChanged || ((name === 'env' || name === 'command') && cmd.args.some((a) => ENVIRONMENT_CHANGING.test(a.value ?? '')));
    // `env --chdir=DIR CMD` is `cd DIR && CMD`: DIR gets the path check, CMD's relative paths are read from it.
    let innerCtx = ctx;
    const dir = name === 'env' ? envChdir(cmd.args) : undefined;
    if (dir === null) decisions.push(ask('unprovable-argument', 'env --chdir has no fixed value'));
    // `env -C s*b`: bash expands the glob, so the folder is not the text (a `cd` glob is expanded; this one is not read).
    else if (dir !== undefined && /[*?[]/.test(dir)) decisions.push(ask('unprovable-argument', `env -C ${dir}: a folder given by a glob`));
    else if (dir !== undefined) {
      const checked = decideShellPath(ctx, dir);
      decisions.push(checked);
      // DIR is opened from the folder env runs in (`cd src && env -C lib …` is src/lib).
      innerCtx = { ...ctx, folders: [...new Set([...ctx.folders, ...ctx.folders.map((base) => path.resolve(base, dir))])] };
    }
    decisions.push(decideCommand(innerCtx, { ...inner, redirects: [], ...(cmd.stdin !== undefined ? { stdin: cmd.stdin } : {}) }, changes));
    return strictest(decisions);
  }

  const inspection = inspect(ctx, name, cmd);
  decisions.push(...inspection.decisions);
  const joined = cmd.args.map((a) => a.value ?? a.text).join(' ');
  const rule = policy.shell.rules.find((r) => r.programs.includes(name) && ruleApplies(r, ctx.sandbox, inspection.subcommand, joined));
  if (rule) decisions.push(fromRule(rule, name));
  else if (policy.shell.allow.includes(name)) decisions.push(allow('allow-list', `${name} is on the allow list`));
  else {
    decisions.push(
      policy.shell.default === 'deny'
        ? deny('not-allowed', `${name} is not on the allow list`)
        : ask('not-allowed', `${name} is not on the allow list`),
    );
  }

  if (!policy.shell.text_args.includes(name)) {
    decisions.push(...globsAsOptions(ctx, name, cmd.args));
    // `sort --files0-from=LIST` (`find -files0-from LIST`) reads the files LIST names, known only when it runs.
    const list = cmd.args.find((a) => a.value !== null && ['-files0-from', '--files0-from'].includes(a.value.split('=')[0]!));
    if (list) decisions.push(ask('file-list-argument', `${name} ${list.text} reads the files a list names, which cannot be checked before it runs`));
    for (const arg of inspection.pathArgs ?? cmd.args) {
      for (const candidate of pathCandidates(arg)) {
        if (arg.glob) decisions.push(...ctx.folders.map((base) => decideGlob(policy, candidate, root, base, ctx.globs)));
        else decisions.push(decideShellPath(ctx, candidate, inspection.cwd));
      }
    }
  }
  return strictest(decisions);
}

/** The program's own reading of its arguments (sed scripts, git options, inline code), if it has one. */
function inspect(ctx: ShellContext, name: string, cmd: SimpleCommand): Inspection {
  const check = programCheck(name);
  if (!check) return { decisions: [] };
  const inspectContext: InspectContext = {
    policy: ctx.policy,
    root: ctx.root,
    sandbox: ctx.sandbox,
    folders: ctx.folders,
    checkPath: (p) => decideShellPath(ctx, p),
    outwardLinksUnder: (p) =>
      ctx.folders.flatMap((base) => {
        const dir = path.resolve(base, p);
        return outwardSymlinks(ctx.root, ctx.globs).filter((link) => !path.relative(dir, path.join(ctx.root, link)).startsWith('..'));
      }),
    // Read from every folder the command may run in; a folder outside the workspace is the path check's to refuse.
    secretUnder: (p) => {
      for (const base of ctx.folders) {
        const checked = resolveInWorkspace(ctx.root, path.resolve(base, p));
        const found = checked.inside ? secretUnder(ctx.root, checked.absolute, ctx.policy.secret_paths) : null;
        if (found !== null) return found;
      }
      return null;
    },
    // The program's own mention counts once, from whichever folder it is read.
    namedElsewhere: (p) => timesNamed(ctx, p) > 1,
    namedAnywhere: (p) => timesNamed(ctx, p) > 0,
    checkCommand: (inner) => decideCommand(ctx, inner),
  };
  return check(cmd, inspectContext);
}

/** How many times the command line names a path, read from every folder the command may run in. */
function timesNamed(ctx: ShellContext, p: string): number {
  // Each file the name may be counts the mentions that may be it (namedPaths reads every name from its command's folders).
  return Math.max(0, ...ctx.folders.map((base) => ctx.named.get(canonicalPath(ctx.root, path.resolve(base, p))) ?? 0));
}

function ruleApplies(rule: ShellRule, sandbox: SandboxKind, subcommand: string | undefined, joinedArgs: string): boolean {
  if (rule.sandbox !== undefined && rule.sandbox !== sandbox) return false;
  if (rule.subcommands !== undefined && (subcommand === undefined || !rule.subcommands.includes(subcommand))) return false;
  return rule.when_args_match === undefined || safeRegex(rule.when_args_match).test(joinedArgs);
}

function fromRule(rule: ShellRule, program: string): Decision {
  const reason = `${program}: ${rule.reason}`;
  if (rule.decision === 'allow') return allow(rule.id, reason, rule.risk);
  if (rule.decision === 'deny') return { ...deny(rule.id, reason), risk: rule.risk };
  return ask(rule.id, reason, rule.risk);
}

/** Variables a builtin sets: `printf -v NAME` (a name with no fixed value counts as hijacking). */
function builtinAssignments(cmd: SimpleCommand): SimpleCommand['assignments'] {
  if (cmd.program?.value !== 'printf') return [];
  const out: SimpleCommand['assignments'] = [];
  cmd.args.forEach((arg, i) => {
    const v = arg.value;
    if (v === '-v') out.push({ name: cmd.args[i + 1]?.value ?? 'PATH', value: null });
    else if (v?.startsWith('-v')) out.push({ name: v.slice(2), value: null });
  });
  return out;
}

/** The folder `env -C DIR` / `--chdir=DIR` runs its command in (null: no fixed value). */
function envChdir(args: ShellWord[]): string | null | undefined {
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null || v === '--' || !v.startsWith('-')) return undefined;
    if (v === '--chdir' || v.startsWith('--chdir=')) return v.includes('=') ? v.slice(v.indexOf('=') + 1) : (args[i + 1]?.value ?? null);
    if (v.startsWith('--')) continue;
    const at = v.indexOf('C');
    if (at > 0) return at < v.length - 1 ? v.slice(at + 1) : (args[i + 1]?.value ?? null);
  }
  return undefined;
}

/** `env -i A=1 nice -n 5 ls -la` → the command the wrapper runs, with its assignments. */
function unwrap(wrapper: string, args: ShellWord[]): Pick<SimpleCommand, 'program' | 'args' | 'assignments'> {
  const assignments: SimpleCommand['assignments'] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const value = args[i]!.value;
    if (value === null) break;
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(value);
    if (assignment) {
      assignments.push({ name: assignment[1]!, value: { value: assignment[2]!, text: assignment[2]!, glob: false } });
    } else if (value.startsWith('-')) {
      i += optionWords(wrapper, value) - 1;
      if (value === '--') {
        i++;
        break;
      }
    } else if (!/^\d+(\.\d+)?[smhd]?$/.test(value)) break;
  }
  return { program: args[i] ?? null, args: args.slice(i + 1), assignments };
}

/**
 * The parts of an argument that may name a file: the word, `--opt=VALUE`, `-fVALUE`. Short flags
 * bundle, and the last one's value runs to the end of the word (`sort -uo/tmp/x` is `-u -o /tmp/x`,
 * `cp -at/tmp` is `-a -t /tmp`, `sort -uosecrets.json`): the value may start after any letter of
 * the leading run of flag letters, so every such tail is a candidate.
 */
function pathCandidates(arg: ShellWord): string[] {
  const v = arg.value;
  if (v === null || v === '' || v === '-' || v === '--') return [];
  if (!v.startsWith('-')) return [v];
  const eq = v.indexOf('=');
  if (eq > 0) return [v.slice(eq + 1)].filter(Boolean);
  if (v.startsWith('--') || v.length <= 2) return [];
  const letters = /^-([A-Za-z]*)/.exec(v)![1]!.length;
  const tails: string[] = [];
  for (let k = 2; k <= Math.min(1 + letters, 24) && k < v.length; k++) tails.push(v.slice(k));
  return tails;
}

/**
 * A glob is checked with every wildcard segment replaced by a plain name (so `*\/../..` still
 * climbs out), and refused while the workspace holds a symlink that points outside it.
 */
function decideGlob(policy: Policy, pattern: string, root: string, base: string, globs: ShellContext['globs']): Decision {
  const literal = pattern
    .split('/')
    .map((segment) => (/[*?[]/.test(segment) ? '__glob__' : segment))
    .join('/');
  const decided = decidePath(policy, path.resolve(base, literal), root, 'shell');
  if (decided.decision !== 'allow') return { ...decided, reason: `glob ${pattern}: ${decided.reason}` };
  // Only links the glob can reach matter: below its literal folder, as deep as its segments go.
  const segments = pattern.split('/').filter((s) => s !== '' && s !== '.');
  const firstGlob = segments.findIndex((s) => /[*?[]/.test(s));
  const start = path.resolve(base, ...(pattern.startsWith('/') ? ['/'] : []), ...segments.slice(0, firstGlob));
  const reachable = outwardSymlinks(root, globs).filter((link) => {
    const rel = path.relative(start, path.join(root, link));
    return !rel.startsWith('..') && rel.split(path.sep).length <= segments.length - firstGlob;
  });
  if (reachable.length > 0) {
    return deny('glob-through-symlink', `glob ${pattern} may match ${reachable[0]}, a symlink out of the workspace`, 'PATH_OUTSIDE_WORKSPACE');
  }
  const secret = globMatches(start, segments.slice(firstGlob)).find((match) => isSecretPath(root, match, policy.secret_paths));
  if (secret) return deny('secret-path', `glob ${pattern} matches ${path.relative(root, secret)}, a secret path`, 'PERMISSION_DENIED');
  return decided;
}

const MAX_GLOB_MATCHES = 5_000;

/** What a glob matches now, as bash would (no dotglob: a segment not starting with `.` skips dot files). */
function globMatches(start: string, segments: string[]): string[] {
  let current = [start];
  for (const segment of segments) {
    if (!/[*?[]/.test(segment)) {
      current = current.map((dir) => path.join(dir, segment));
      continue;
    }
    const matcher = globSegmentMatcher(segment);
    if (matcher === null) return [];
    const next: string[] = [];
    for (const dir of current) {
      let entries: string[] = [];
      try {
        entries = readdirSync(dir);
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (entry.startsWith('.') && !segment.startsWith('.')) continue;
        if (matcher.test(entry)) next.push(path.join(dir, entry));
        if (next.length >= MAX_GLOB_MATCHES) break;
      }
    }
    current = next;
  }
  return current;
}

const MAX_SCANNED_ENTRIES = 20_000;

/** Symlinks inside the workspace whose target is outside it (bounded walk, once per decision). */
function outwardSymlinks(root: string, cache: { outward: string[] | undefined }): string[] {
  cache.outward ??= scanOutwardSymlinks(root);
  return cache.outward;
}

function scanOutwardSymlinks(root: string): string[] {
  const found: string[] = [];
  const queue = [root];
  let seen = 0;
  while (queue.length > 0 && seen < MAX_SCANNED_ENTRIES) {
    const dir = queue.pop()!;
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      continue;
    }
    for (const entry of entries) {
      seen++;
      const full = path.join(dir, entry);
      const stat = lstatSync(full, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isSymbolicLink()) {
        let target: string | null = null;
        try {
          target = realpathSync(full);
        } catch {
          target = null;
        }
        const rel = target === null ? '..' : path.relative(root, target);
        if (rel.startsWith('..') || path.isAbsolute(rel)) found.push(path.relative(root, full));
      } else if (stat.isDirectory()) queue.push(full);
    }
  }
  return found;
}
