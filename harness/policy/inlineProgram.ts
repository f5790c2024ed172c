import { ask, deny, type Decision } from './decision.js';

export type ProgramLanguage = 'python' | 'node';

interface Pattern {
  pattern: RegExp;
  /** code: tested with string contents blanked (so words in messages do not count); raw: as written. */
  on: 'code' | 'raw';
  decide: (what: string) => Decision;
}

const spawns = (what: string) => deny('inline-spawns-process', `the program starts other processes (${what})`);
const network = (what: string) => deny('inline-network', `the program reaches the network (${what})`);
const dynamic = (what: string) => ask('inline-dynamic-code', `the program builds code or names at run time (${what}), which cannot be read before it runs`);
const deletes = (what: string) => ask('inline-deletes', `the program deletes or moves files (${what})`, 'medium');

/** Process-starting calls by name, whatever module or alias they are reached through (`o.system(`, `from os import system`). */
const SPAWN_CALLS = /(?<![\w$])(system|popen[0-9]?|exec[lv]p?e?|spawn\w*|posix_spawnp?|forkpty|fork|fork_exec)\s*\(/;
/** The same names imported under another (`from os import system as run`): the call no longer says which. */
const SPAWN_IMPORTS = /\bimport\b[ \t\w.,()*]*?\b(system|popen\w*|exec[lv]p?e?|spawn\w*|posix_spawnp?|fork\w*|startfile)\b/;
/** Modules that run a string as Python (`timeit.timeit("...")`, `pdb.run`, `code.InteractiveInterpreter`). */
const PYTHON_STRING_RUNNERS = /\b(import[ \t]+[ \t\w.,]*?|from[ \t]+)\b(timeit|code|codeop|pdb|bdb|cProfile|profile|trace|doctest|zipimport|imp|pkgutil)\b/;
const NODE_SPAWN_MODULES = 'child_process|worker_threads|cluster';
const NODE_NET_MODULES = 'net|http|https|http2|dgram|tls|dns|undici|inspector';

const PATTERNS: Record<ProgramLanguage, Pattern[]> = {
  python: [
    { on: 'code', pattern: /\b(os\s*\.\s*(system|popen\w*|exec\w*|spawn\w*|fork\w*|posix_spawn\w*|startfile)|\w*subprocess\w*|multiprocessing|pty|pipes|ctypes|cffi|pexpect|commands|asyncio\s*\.\s*create_subprocess\w*)\b/, decide: spawns },
    { on: 'code', pattern: SPAWN_CALLS, decide: spawns },
    { on: 'code', pattern: SPAWN_IMPORTS, decide: spawns },
    { on: 'code', pattern: /\b(_?socket|_ssl|socketserver|urllib\d?|http|httpx|requests|aiohttp|ftplib|smtplib|poplib|imaplib|telnetlib|nntplib|xmlrpc|paramiko|ssl|webbrowser|asyncio\s*\.\s*open_connection)\b/, decide: network },
    { on: 'code', pattern: /(?<![.\w])(eval|exec|compile|__import__|getattr|setattr|delattr|globals|locals|vars|breakpoint)\s*\(|\b(importlib|builtins|__builtins__|__subclasses__|__globals__|__code__|__dict__|__getattribute__|attrgetter|methodcaller|FunctionType|CodeType|get_objects|get_referents|get_referrers|load_extension|load_module|exec_module|__loader__|__spec__|marshal|pickle|shelve|dill|cloudpickle|jsonpickle|copyreg|runpy)\b|\bsys\s*\.\s*modules\b/, decide: dynamic },
    { on: 'code', pattern: PYTHON_STRING_RUNNERS, decide: dynamic },
    { on: 'code', pattern: /\b(shutil\s*\.\s*(rmtree|move)|os\s*\.\s*(remove|unlink|rmdir|removedirs|rename|replace|truncate))\b|\.\s*(unlink|rmdir)\s*\(/, decide: deletes },
  ],
  node: [
    // Named anywhere, not only in require(): createRequire(...)('child_process'), process.getBuiltinModule(...).
    { on: 'raw', pattern: new RegExp(`['"\`](node:)?(${NODE_SPAWN_MODULES})['"\`]`), decide: spawns },
    { on: 'raw', pattern: /(\brequire\s*\(\s*|\bfrom\s+|\bimport\s*\(?\s*|getBuiltinModule\s*\(\s*)['"`](node:)?(vm|repl|module|v8|wasi)['"`]/, decide: dynamic },
    { on: 'raw', pattern: /\brequire\s*\(\s*(['"`])[^'"`]*\1\s*[^)\s]/, decide: dynamic },
    { on: 'code', pattern: /\b(execSync|execFileSync|spawnSync|process\s*\.\s*(binding|dlopen|_linkedBinding|kill|execve)|Deno\s*\.\s*(run|Command)|Bun\s*\.\s*spawn\w*)\b/, decide: spawns },
    { on: 'raw', pattern: new RegExp(`\\b(require\\s*\\(\\s*|from\\s+|import\\s+)['"\`](node:)?(${NODE_NET_MODULES})['"\`]`), decide: network },
    { on: 'code', pattern: /\bfetch\s*\(|\bWebSocket\b|\bXMLHttpRequest\b|\bEventSource\b/, decide: network },
    { on: 'code', pattern: /\beval\s*\(|\bFunction\s*\(|\bimport\s*\(|\brequire\s*\(\s*[^'"`\s)]|\brequire\s*\(\s*`|\bvm\b|\bmodule\s*\.\s*constructor|\bprocess\s*\.\s*mainModule|\b(global|globalThis|process|module|require|exports|self|Reflect)\s*\[|\.\s*constructor\b|\brequire\s*\.\s*(cache|call|apply|bind)\b|\bReflect\s*\.\s*(apply|construct|get)\b|\b(createRequire|getBuiltinModule)\b/, decide: dynamic },
    { on: 'code', pattern: /\b(rmSync|rmdirSync|unlinkSync|rm|rmdir|unlink|renameSync|rename|truncateSync)\s*\(/, decide: deletes },
  ],
};

const URL = /\b(https?|ftps?|wss?|ssh|git|file):\/\//i;
const STRING = /'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\$])*`/g;

/**
 * Reads a program carried in the command (`python3 -c CODE`, `node -e CODE`, a here-doc script) or
 * named by it (a workspace script) with the same care as the shell: starting processes and reaching
 * the network refuse, code built at run time and deletions ask, and every string that names a path
 * is checked like a shell argument (outside the workspace or a secret refuses). Code that only
 * computes and prints passes. This is a reading, not a proof: the sandbox stays the boundary.
 */
export function inspectProgramText(language: ProgramLanguage, text: string, checkPath: (p: string) => Decision): Decision[] {
  const out: Decision[] = [];
  const withoutComments = language === 'python' ? text.replace(/(^|\s)#[^\n]*/g, '$1') : text.replace(/(^|[^:])\/\/[^\n]*/g, '$1').replace(/\/\*[\s\S]*?\*\//g, '');
  const code = withoutComments.replace(STRING, (m) => `${m[0]}${m[0]}`);
  for (const { pattern, on, decide } of PATTERNS[language]) {
    const match = pattern.exec(on === 'code' ? code : withoutComments);
    if (match) out.push(decide(match[0].replace(/\s+/g, '')));
  }
  const url = URL.exec(withoutComments);
  if (url) out.push(network(url[0]));
  for (const literal of withoutComments.match(STRING) ?? []) {
    const value = decodeLiteral(literal.slice(1, -1));
    if (looksLikePath(value)) {
      const decided = checkPath(value);
      if (decided.decision !== 'allow') out.push({ ...decided, reason: `string ${JSON.stringify(value.slice(0, 80))} in the program: ${decided.reason}` });
    }
  }
  return out;
}

function decodeLiteral(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[0-7]{1,3}|.)/g, (_m, esc: string) => {
    if (/^x/.test(esc) || /^u/.test(esc)) return String.fromCharCode(parseInt(esc.slice(1), 16));
    if (/^[0-7]+$/.test(esc)) return String.fromCharCode(parseInt(esc, 8));
    return ({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[esc] ?? esc;
  });
}

/** A string worth a path check: absolute, home-relative, climbing, or a plain file-like name. */
function looksLikePath(value: string): boolean {
  if (value === '' || value.length > 4096 || /[\n\r\0]/.test(value)) return value.includes('\0');
  if (/^[/~]/.test(value) || /(^|\/)\.\.(\/|$)/.test(value)) return true;
  return /^[\w.@+-]+(\/[\w.@+ -]+)*\/?$/.test(value) && /[./]/.test(value);
}
