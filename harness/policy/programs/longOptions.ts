import type { ShellWord } from '../shellSyntax.js';
import { OPTION_TABLES } from './optionTables.js';

/** One long option: its names (aliases share one meaning) and whether it takes a value. */
interface LongOption {
  names: string[];
  value: 'none' | 'required' | 'optional';
}

interface ReadTable {
  short: string;
  long: LongOption[];
  stopsAtOperand: boolean;
}

/** Programs that are another program under a second name, with its option parser. */
const SAME_PARSER: Record<string, string> = { egrep: 'grep', fgrep: 'grep', gsed: 'sed' };

const tables = new Map<string, ReadTable>();

function tableOf(program: string): ReadTable | undefined {
  const name = SAME_PARSER[program] ?? program;
  if (!Object.hasOwn(OPTION_TABLES, name)) return undefined;
  let table = tables.get(name);
  if (!table) {
    const raw = OPTION_TABLES[name]!;
    table = {
      short: raw.short,
      stopsAtOperand: raw.stopsAtOperand === true,
      long: raw.long.split(' ').map((entry) => {
        const value = entry.endsWith('=?') ? 'optional' : entry.endsWith('=') ? 'required' : 'none';
        return { names: entry.replace(/=\??$/, '').split('|'), value };
      }),
    };
    tables.set(name, table);
  }
  return table;
}

type LongMatch = { kind: 'exact' | 'prefix'; option: LongOption; name: string } | { kind: 'ambiguous'; candidates: string[] } | { kind: 'unknown' };

/**
 * GNU getopt_long's reading of `--NAME`: an exact name wins, else a prefix of exactly one option
 * (or of one option's aliases) is that option, else a prefix of several is ambiguous (refused).
 */
function matchLong(table: ReadTable, name: string): LongMatch {
  const exact = table.long.find((o) => o.names.includes(name));
  if (exact) return { kind: 'exact', option: exact, name };
  const matches = table.long.filter((o) => o.names.some((n) => n.startsWith(name)));
  if (matches.length === 1) return { kind: 'prefix', option: matches[0]!, name: matches[0]!.names[0]! };
  if (matches.length > 1) return { kind: 'ambiguous', candidates: matches.map((o) => `--${o.names[0]}`) };
  return { kind: 'unknown' };
}

export interface SpelledOut {
  /** The arguments with every abbreviated long option written in full (`--comp=sh` → `--compress-program=sh`). */
  args: ShellWord[];
  /** Abbreviations that match several options, with what they could be. */
  ambiguous: Array<{ written: string; candidates: string[] }>;
}

/**
 * Writes each long option out as the program's option parser will read it, so the rules and program
 * checks only ever meet full names. Values (`-k KEY`, `--output FILE`) and operands are left alone;
 * a program without a table is left as written.
 */
export function spellOutOptions(program: string, args: ShellWord[]): SpelledOut {
  const table = tableOf(program);
  if (!table) return { args, ambiguous: [] };
  const out = [...args];
  const ambiguous: SpelledOut['ambiguous'] = [];
  for (let i = 0; i < out.length; i++) {
    const v = out[i]!.value;
    if (v === null) continue;
    if (v === '--') break;
    if (!v.startsWith('-') || v === '-') {
      if (table.stopsAtOperand) break;
      continue;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = v.slice(2, eq < 0 ? undefined : eq);
      const match = matchLong(table, name);
      if (match.kind === 'ambiguous') ambiguous.push({ written: `--${name}`, candidates: match.candidates });
      if (match.kind === 'prefix') out[i] = { ...out[i]!, value: `--${match.name}${eq < 0 ? '' : v.slice(eq)}` };
    }
    // `-k KEY`, `--output FILE`: the value is the next word, never an option.
    i += optionWords(program, out[i]!.value!) - 1;
  }
  return { args: out, ambiguous };
}

/**
 * How many words an option takes as the program reads it: itself, and its value when that is the
 * next word (`env -u NAME`, `xargs --arg-file FILE`, but not `-uNAME` or `--unset=NAME`).
 */
export function optionWords(program: string, option: string): number {
  const table = tableOf(program);
  if (!table || option === '--' || !option.startsWith('-')) return 1;
  if (option.startsWith('--')) {
    const match = option.includes('=') ? undefined : matchLong(table, option.slice(2));
    return match !== undefined && (match.kind === 'exact' || match.kind === 'prefix') && match.option.value === 'required' ? 2 : 1;
  }
  for (let j = 1; j < option.length; j++) {
    if (table.short.includes(option[j]!)) return j === option.length - 1 ? 2 : 1;
  }
  return 1;
}
