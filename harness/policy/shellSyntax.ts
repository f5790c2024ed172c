import { createRequire } from 'node:module';
import { Language, Parser, type Node } from 'web-tree-sitter';
import { bodyExpansions, heredocOf, literalBody, readHereDocs, type HereDoc } from './hereDocs.js';

/**
 * Parses a shell command (bash grammar, tree-sitter) into the simple commands it would run and the
 * constructs that make it unprovable. Nothing is evaluated: a word is known only when it is made of
 * literals; any expansion or substitution leaves it unknown (null).
 */

export interface ShellWord {
  /** The word after quote removal, or null when it depends on an expansion or substitution. */
  value: string | null;
  /** The source text, for messages and rule matching when the value is unknown. */
  text: string;
  /** Contains an unquoted glob character. */
  glob: boolean;
}

export interface ShellRedirect {
  op: string;
  /** read: `<`; write: `>` `>>` `&>` ...; fd: a descriptor duplication such as `2>&1`. */
  kind: 'read' | 'write' | 'fd';
  target: ShellWord;
}

export interface SimpleCommand {
  program: ShellWord | null;
  args: ShellWord[];
  assignments: Array<{ name: string; value: ShellWord | null }>;
  redirects: ShellRedirect[];
  /** Literal text a here-document or here-string feeds the command (an interpreter's program). */
  stdin?: string;
  /**
   * Where the command stands in the top-level list: the index of its statement (`a; b && c` has two),
   * and whether it is a link of a plain `a && b && c` chain, so runs in this shell in order. Absent
   * for commands the list does not place (a here-doc body's substitutions).
   */
  step?: { statement: number; chained: boolean };
}

export interface Unprovable {
  construct: string;
  detail: string;
}

export interface ShellAnalysis {
  commands: SimpleCommand[];
  /** Redirects that apply to a whole statement (a pipeline or list). */
  redirects: ShellRedirect[];
  unprovable: Unprovable[];
  /** The command's here-documents as bash reads them (hereDocs.ts); the parser sees placeholders. */
  heredocs: HereDoc[];
}

let parserPromise: Promise<Parser> | undefined;

async function loadParser(): Promise<Parser> {
  const require = createRequire(import.meta.url);
  await Parser.init();
  const bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const parser = new Parser();
  parser.setLanguage(bash);
  return parser;
}

export function shellParser(): Promise<Parser> {
  parserPromise ??= loadParser();
  return parserPromise;
}

const CONTAINERS = new Set([
  'program', 'list', 'pipeline', 'subshell', 'compound_statement', 'negated_command', 'do_group',
  'if_statement', 'elif_clause', 'else_clause', 'while_statement', 'case_statement', 'case_item',
  'redirected_statement',
]);

const DYNAMIC = new Set(['simple_expansion', 'expansion', 'arithmetic_expansion', 'brace_expression', 'extglob_pattern']);
const SUBSTITUTIONS = new Set(['command_substitution', 'process_substitution']);

export async function analyzeShell(command: string): Promise<ShellAnalysis> {
  const parser = await shellParser();
  // Here-docs are read by bash's rules first; the parser gets the command with their bodies cut out.
  const reading = readHereDocs(command);
  const analysis: ShellAnalysis = { commands: [], redirects: [], unprovable: [], heredocs: reading.heredocs };
  for (const detail of reading.uncertain) analysis.unprovable.push({ construct: 'heredoc', detail: `${detail}: the here-document cannot be read with certainty` });
  const tree = parser.parse(reading.source);
  if (!tree) {
    analysis.unprovable.push({ construct: 'parse', detail: 'the command could not be parsed' });
    return analysis;
  }
  try {
    if (tree.rootNode.hasError) {
      analysis.unprovable.push({ construct: 'parse', detail: 'the command has a syntax error' });
    }
    const joined = continuedWord(tree.rootNode, Buffer.from(reading.source, 'utf8'));
    if (joined) analysis.unprovable.push({ construct: 'parse', detail: `a line continuation joins ${joined} into one word, which the parser reads as two` });
    visitProgram(tree.rootNode, analysis);
  } finally {
    tree.delete();
  }
  for (const doc of reading.heredocs) if (!doc.quoted) await expandedBody(doc, analysis);
  return analysis;
}

/**
 * An unquoted here-doc's body is expanded by bash: each `$(…)` or backquoted command in it runs and
 * is judged like any other command; any expansion leaves the text unknown (asks).
 */
async function expandedBody(doc: HereDoc, out: ShellAnalysis): Promise<void> {
  const { substitutions, expands } = bodyExpansions(doc.body);
  if (!expands) return;
  out.unprovable.push({ construct: 'heredoc', detail: 'here-document expands variables or runs substitutions' });
  for (const text of substitutions) {
    const inner = await analyzeShell(text);
    out.commands.push(...inner.commands.map(({ step: _step, ...cmd }) => cmd));
    out.redirects.push(...inner.redirects);
    out.unprovable.push(...inner.unprovable);
  }
}

/**
 * bash removes `\<newline>` before it splits words, so `cat .e\<newline>nv` reads `.env`; the
 * parser takes it for a separator and sees `.e` and `nv`. Two neighbours with nothing but a line
 * continuation between them are one word to bash: such a command cannot be judged word by word.
 */
function continuedWord(root: Node, source: Buffer): string | undefined {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const children = node.children.filter((c): c is Node => c !== null);
    for (let i = 1; i < children.length; i++) {
      const [before, after] = [children[i - 1]!, children[i]!];
      if (!before.isNamed || !after.isNamed || before.type === 'comment') continue;
      // `a\<newline>b` joins; `a\<newline>  b` is two words (the continuation is removed, the spaces split).
      if (/^(\\\n)+$/.test(source.subarray(before.endIndex, after.startIndex).toString('utf8'))) return `${before.text}${after.text}`;
    }
    stack.push(...children);
  }
  return undefined;
}

/** The top-level statements in order, each command marked with its place among them (SimpleCommand.step). */
function visitProgram(root: Node, out: ShellAnalysis): void {
  let statement = 0;
  for (let i = 0; i < root.childCount; i++) {
    const child = root.child(i);
    if (!child?.isNamed || child.type === 'comment') continue; // `;`, `&`, newlines
    const first = out.commands.length;
    if (isRedirect(child.type)) collectRedirect(child, out.redirects, out);
    else visit(child, out);
    // `cd src &` runs in a background subshell: it moves nothing.
    const chained = root.child(i + 1)?.type !== '&' && isAndChain(child);
    for (const cmd of out.commands.slice(first)) cmd.step = { statement, chained };
    statement++;
  }
}

/** `a && b && c` of plain commands (with redirects): each runs in this shell, only if the one before succeeded. */
function isAndChain(node: Node): boolean {
  if (node.type === 'command') return true;
  if (node.type === 'redirected_statement') return node.namedChildren.every((c) => c !== null && (isRedirect(c.type) || isAndChain(c)));
  if (node.type !== 'list') return false;
  return node.children.every((c) => c !== null && (c.isNamed ? isAndChain(c) : c.type === '&&'));
}

function visit(node: Node, out: ShellAnalysis): void {
  const type = node.type;
  if (type === 'comment') return;
  if (CONTAINERS.has(type)) {
    const first = out.commands.length;
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (isRedirect(child.type)) collectRedirect(child, out.redirects, out);
      else visit(child, out);
    }
    if (type === 'redirected_statement') attachHeredoc(node, out.commands[first], out);
    return;
  }
  switch (type) {
    case 'command':
      out.commands.push(simpleCommand(node, out));
      return;
    case 'variable_assignment':
    case 'variable_assignments':
      out.commands.push({ program: null, args: [], assignments: assignments(node, out), redirects: [] });
      // A bare assignment runs nothing; it is recorded so the policy can judge what it sets.
      out.commands[out.commands.length - 1]!.program = { value: '', text: '', glob: false };
      return;
    case 'declaration_command':
    case 'unset_command':
    case 'test_command':
      out.commands.push(keywordCommand(node, out));
      return;
    case 'for_statement': {
      const words = node.childrenForFieldName('value').filter((c): c is Node => c !== null);
      // The loop variable is assigned (and stays exported if it already was: `for PATH in ./bin`).
      const variable = node.childForFieldName('variable')?.text;
      out.commands.push({
        program: { value: 'for', text: 'for', glob: false },
        args: words.map((w) => word(w, out)),
        assignments: variable ? [{ name: variable, value: null }] : [],
        redirects: [],
      });
      const body = node.childForFieldName('body');
      if (body) visit(body, out);
      return;
    }
    case 'function_definition':
      out.unprovable.push({ construct: 'function', detail: 'defines a shell function' });
      return;
    case 'c_style_for_statement':
      out.unprovable.push({ construct: 'loop', detail: 'C-style for loop' });
      return;
    default:
      if (isRedirect(type)) {
        collectRedirect(node, out.redirects, out);
        return;
      }
      out.unprovable.push({ construct: type, detail: `unsupported shell construct "${type}"` });
  }
}

/** `python3 - > out <<'EOF'`: a here-doc the parser put on the statement feeds its first command. */
function attachHeredoc(node: Node, command: SimpleCommand | undefined, out: ShellAnalysis): void {
  if (!command || node.childForFieldName('body')?.type !== 'command') return;
  for (const child of node.namedChildren) {
    const doc = child?.type === 'file_redirect' ? heredocOf(child.namedChildren.at(-1)?.text ?? null, out.heredocs) : undefined;
    if (doc && feedsStdin(child!)) command.stdin = literalBody(doc);
  }
}

function feedsStdin(redirect: Node): boolean {
  const fd = redirect.childForFieldName('descriptor') ?? redirect.namedChildren.find((c) => c?.type === 'file_descriptor');
  return !fd || fd.text === '0';
}

function isRedirect(type: string): boolean {
  return type === 'file_redirect' || type === 'heredoc_redirect' || type === 'herestring_redirect';
}

function simpleCommand(node: Node, out: ShellAnalysis): SimpleCommand {
  const command: SimpleCommand = { program: null, args: [], assignments: [], redirects: [] };
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === 'variable_assignment') command.assignments.push(...assignments(child, out));
    else if (child.type === 'command_name') command.program = word(child.namedChildren[0] ?? child, out);
    else if (child.type === 'herestring_redirect') {
      const target = child.namedChildren[0];
      const value = target ? word(target, out).value : null;
      if (value !== null) command.stdin = `${value}\n`;
    } else if (isRedirect(child.type)) {
      const doc = child.type === 'file_redirect' ? heredocOf(child.namedChildren.at(-1)?.text ?? null, out.heredocs) : undefined;
      // `3<<EOF` feeds descriptor 3, not the program's standard input.
      if (doc && feedsStdin(child)) command.stdin = literalBody(doc);
      else if (!doc) collectRedirect(child, command.redirects, out);
    }
    else if (child.type !== 'comment') command.args.push(word(child, out));
  }
  return command;
}

/** An operand bash's arithmetic takes as a plain number (no name, no subscript, nothing to evaluate). */
const PLAIN_INTEGER = /^\s*[-+]?\s*(0[xX][0-9a-fA-F]+|[0-9]+(#[0-9a-zA-Z@_]+)?)\s*$/;
const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/**
 * `[[ 'a[$(cmd)]' -eq 0 ]]` and `[ -v 'a[$(cmd)]' ]` run cmd: bash evaluates `[[`'s arithmetic
 * operands (a name is looked up and its value evaluated in turn) and the subscript of the name
 * `-v`/`-R` test, command substitutions included, though the word is quoted. Only plain numbers
 * and plain names pass.
 */
function evaluatedOperands(node: Node, doubleBracket: boolean, out: ShellAnalysis): void {
  const operator = node.childForFieldName('operator')?.text ?? '';
  const leaves = (n: Node): Node[] => (['word', 'number', 'raw_string', 'string', 'concatenation', 'ansi_c_string'].includes(n.type) ? [n] : n.namedChildren.filter((c): c is Node => c !== null && c.type !== 'test_operator').flatMap(leaves));
  if (node.type === 'binary_expression' && doubleBracket && ARITHMETIC_TESTS.has(operator)) {
    for (const side of [node.childForFieldName('left'), node.childForFieldName('right')]) {
      for (const leaf of side ? leaves(side) : []) {
        const value = staticValue(leaf, { commands: [], redirects: [], unprovable: [], heredocs: [] });
        if (value !== null && !PLAIN_INTEGER.test(value)) out.unprovable.push({ construct: 'arithmetic', detail: `[[ … ${operator} … ]] evaluates ${leaf.text} as arithmetic, which can run commands` });
      }
    }
  }
  if (node.type === 'unary_expression' && (operator === '-v' || operator === '-R')) {
    for (const leaf of leaves(node)) {
      const value = staticValue(leaf, { commands: [], redirects: [], unprovable: [], heredocs: [] });
      if (value !== null && value.includes('[')) out.unprovable.push({ construct: 'arithmetic', detail: `${operator} ${leaf.text} evaluates a subscript, which can run commands` });
    }
  }
}

function keywordCommand(node: Node, out: ShellAnalysis): SimpleCommand {
  const keyword = node.type === 'test_command' ? 'test' : (node.child(0)?.text ?? node.type);
  const doubleBracket = node.type === 'test_command' && node.child(0)?.text === '[[';
  const args: ShellWord[] = [];
  const walkWords = (n: Node) => {
    if (node.type === 'test_command') evaluatedOperands(n, doubleBracket, out);
    for (const child of n.namedChildren) {
      if (!child) continue;
      if (child.type === 'variable_assignment') {
        const name = child.childForFieldName('name')?.text ?? '';
        const value = child.childForFieldName('value');
        args.push(value ? { ...word(value, out), text: `${name}=${value.text}` } : { value: name, text: name, glob: false });
      } else if (['binary_expression', 'unary_expression', 'parenthesized_expression'].includes(child.type)) {
        walkWords(child);
      } else if (child.type !== 'test_operator') {
        args.push(word(child, out));
      }
    }
  };
  walkWords(node);
  return { program: { value: keyword, text: keyword, glob: false }, args, assignments: [], redirects: [] };
}

function assignments(node: Node, out: ShellAnalysis): SimpleCommand['assignments'] {
  const list = node.type === 'variable_assignments' ? node.namedChildren : [node];
  return list
    .filter((n): n is Node => n !== null && n.type === 'variable_assignment')
    .map((n) => {
      const value = n.childForFieldName('value');
      return { name: n.childForFieldName('name')?.text ?? '', value: value ? word(value, out) : null };
    });
}

function collectRedirect(node: Node, into: ShellRedirect[], out: ShellAnalysis): void {
  if (node.type === 'heredoc_redirect') {
    // Every here-doc is read (and replaced) before parsing: one the parser still sees was not read.
    out.unprovable.push({ construct: 'heredoc', detail: 'the parser found a here-document the here-doc reader did not' });
    return;
  }
  if (node.type === 'herestring_redirect') {
    const target = node.namedChildren[0];
    if (target) word(target, out);
    return;
  }
  const destination = node.childForFieldName('destination') ?? node.namedChildren.at(-1) ?? null;
  const op = node.children.find((c) => c !== null && !c.isNamed)?.text ?? '>';
  if (!destination) return;
  // `< PLACEHOLDER` stands for a here-doc (hereDocs.ts): it feeds text, it reads no file.
  if (heredocOf(destination.text, out.heredocs)) return;
  const target = word(destination, out);
  const isFdDup = (op === '>&' || op === '<&' || op === '>&-' || op === '<&-') && /^(\d+|-)$/.test(target.value ?? '');
  const kind = isFdDup ? 'fd' : op.startsWith('<') && op !== '<>' ? 'read' : 'write';
  into.push({ op, kind, target });
}

function hasDynamic(node: Node): boolean {
  if (DYNAMIC.has(node.type) || SUBSTITUTIONS.has(node.type)) return true;
  return node.namedChildren.some((c) => c !== null && hasDynamic(c));
}

/** The static value of a word, or null; substitutions inside are analyzed as commands too. */
function word(node: Node, out: ShellAnalysis): ShellWord {
  const text = node.text;
  const unquoted = unquotedText(node);
  // Brace expansion turns one word into several ({/etc/passwd,x}): its value is not the text.
  if (/(^|[^\\])\{[^{}]*(,|\.\.)[^{}]*\}/.test(unquoted)) {
    out.unprovable.push({ construct: 'expansion', detail: `brace expansion ${text}` });
    staticValue(node, out);
    return { value: null, text, glob: false };
  }
  const value = staticValue(node, out);
  return { value, text, glob: /(^|[^\\])[*?[]/.test(unquoted) };
}

/** The parts of a word outside quotes, where globs and braces still act. */
function unquotedText(node: Node): string {
  if (node.type === 'word' || node.type === 'command_name') return node.text;
  if (node.type === 'concatenation') {
    return node.namedChildren.map((c) => (c && (c.type === 'word' || c.type === 'concatenation') ? unquotedText(c) : '')).join('');
  }
  return '';
}

function staticValue(node: Node, out: ShellAnalysis): string | null {
  switch (node.type) {
    case 'word':
    case 'command_name':
      if (node.namedChildCount > 0) return concat(node, out);
      // One pass, left to right: `\\` is a backslash, `\<newline>` joins the lines (`.e\<newline>nv` is `.env`).
      return unescapeWord(node.text);
    case 'number':
    case 'string_content':
    case 'heredoc_content':
      return node.text;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string':
    case 'translated_string': {
      let value = '';
      let known = true;
      for (const child of node.namedChildren) {
        if (!child) continue;
        if (child.type === 'string_content') value += child.text.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === '\n' ? '' : c));
        else {
          staticValue(child, out);
          known = false;
        }
      }
      return known ? value : null;
    }
    case 'ansi_c_string':
      return decodeAnsiC(node.text.slice(2, -1));
    case 'concatenation':
      return concat(node, out);
    case 'command_substitution':
    case 'process_substitution': {
      out.unprovable.push({ construct: 'substitution', detail: `${node.type.replace('_', ' ')} ${node.text}` });
      for (const child of node.namedChildren) if (child) visit(child, out);
      return null;
    }
    default:
      if (DYNAMIC.has(node.type)) {
        out.unprovable.push({ construct: 'expansion', detail: `expansion ${node.text} has no fixed value` });
        if (hasDynamic(node)) for (const c of node.namedChildren) if (c && SUBSTITUTIONS.has(c.type)) staticValue(c, out);
        return null;
      }
      out.unprovable.push({ construct: node.type, detail: `unsupported word "${node.text}"` });
      return null;
  }
}

function unescapeWord(text: string): string {
  return text.replace(/\\(\n|.)/gs, (_m, c: string) => (c === '\n' ? '' : c));
}

function concat(node: Node, out: ShellAnalysis): string | null {
  let value = '';
  let known = true;
  for (const child of node.namedChildren) {
    if (!child) continue;
    const part = staticValue(child, out);
    if (part === null) known = false;
    else value += part;
  }
  return known ? value : null;
}

function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|.)/g, (_m, esc: string) => {
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v' };
    if (esc in simple) return simple[esc]!;
    if (/^x/.test(esc)) return String.fromCharCode(parseInt(esc.slice(1), 16));
    if (/^[uU]/.test(esc)) return String.fromCodePoint(parseInt(esc.slice(1), 16));
    if (/^[0-7]+$/.test(esc)) return String.fromCharCode(parseInt(esc, 8));
    return esc;
  });
}
