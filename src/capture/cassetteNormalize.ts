import os from 'node:os';
import path from 'node:path';
import { RE2JS } from 're2js';
import { regexProblem } from '../schema/safeRegex.js';
import type { ChatReply } from './chatReply.js';

/**
 * Where one trial ran, as the strings an agent puts into its prompts: its workspace, its HOME (the
 * trial's own and the machine's), its temporary folders. Each differs between trials, machines and
 * runs, and none of them is the agent's choice.
 */
export interface TrialPlaces {
  workspace?: string | undefined;
  /** The trial's own HOME (TRACEGATE_HOME) and any other HOME the agent may see. */
  homes?: ReadonlyArray<string | undefined> | undefined;
  /** Temporary folders (the trial's scratch folder, TMPDIR). */
  temps?: ReadonlyArray<string | undefined> | undefined;
  /** The instants the trial's "today" is judged from (default: now; with --agent-clock also the agent's). */
  clocks?: readonly number[] | undefined;
  /**
   * The machine's kernel release (default: `os.release()`, what `uname -r` prints), which Claude
   * Code writes into its system prompt (`OS Version: Linux 6.8.0-1017-azure`): another machine, another key.
   */
  osReleases?: readonly string[] | undefined;
}

/** A suite's masking pattern for a volatile value in tool output (a PID, a chunk id, a wall time). */
export interface VolatileMask {
  readonly source: string;
  /** The text with every match replaced (by `<masked>` unless the suite names a replacement). */
  apply(text: string): string;
}

/**
 * A suite's `mask_patterns` entry, run in RE2 like every pattern from input (linear time). The
 * replacement is literal text; throws a SyntaxError naming what RE2 refused.
 */
export function volatileMask(source: string, replacement = '<masked>'): VolatileMask {
  const problem = regexProblem(source);
  if (problem) throw new SyntaxError(problem);
  const re = RE2JS.compile(source);
  const literal = RE2JS.quoteReplacement(replacement);
  return { source, apply: (text) => re.matcher(text).replaceAll(literal) };
}

/** Placeholders a cassette holds where the recording trial's own places were. */
export const PLACE = {
  workspace: '<tracegate:workspace>',
  workspaceSlug: '<tracegate:workspace-slug>',
  home: '<tracegate:home>',
  homeSlug: '<tracegate:home-slug>',
  tmp: '<tracegate:tmp>',
  workspaceName: '<tracegate:workspace-name>',
} as const;

/**
 * A path as a project slug, the way Claude Code names a project's folder under ~/.claude/projects
 * (`/tmp/run-1/3` → `-tmp-run-1-3`): every character but a letter or digit becomes `-`.
 */
export function pathSlug(p: string): string {
  return p.replace(/[^A-Za-z0-9]/g, '-');
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/**
 * A place as it appears in text: not as the beginning of a longer name (`/tmp` is not in `/tmpx`),
 * nor as the end of one or a closing tag (a HOME of `/root` is not in `/srv/root`, nor in Codex's
 * `<workspace_roots><root>…</root>`, which would otherwise key differently on a machine whose HOME it is;
 * `/tmp` is not in `~/.gemini/tmp` or `/var/tmp`).
 */
const placeRegex = (place: string): RegExp => new RegExp(`(?<![A-Za-z0-9_.~<-])${escape(place)}(?![A-Za-z0-9_.-])`, 'g');

const MONTHS = 'January|February|March|April|May|June|July|August|September|October|November|December';
const DAYS = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';
/**
 * Today's date as agents write it into their prompts and tools print it: ISO dates and times
 * (`2026-01-05`, `2026-01-05T10:00:00.123Z`), `Monday, January 5, 2026`, `Mon Jan  5 10:00:00 UTC
 * 2026` (date(1)), `Mon Jan 05 2026` (JavaScript's toDateString and toString), `1/5/2026`.
 */
const DATE_PATTERNS: RegExp[] = [
  /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g,
  new RegExp(`\\b(?:(?:${DAYS}),? )?(?:${MONTHS}) \\d{1,2}(?:st|nd|rd|th)?,? \\d{4}\\b`, 'g'),
  /\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2}(?: \d{2}:\d{2}:\d{2}(?: [A-Z]{2,5})?)? \d{4}(?: \d{2}:\d{2}:\d{2} GMT[+-]\d{4}(?: \([^)]*\))?)?/g,
  /\b\d{1,2}\/\d{1,2}\/\d{4}\b/g,
];
/** Epoch milliseconds, as Gemini CLI's ids and many tools' output carry them. */
const EPOCH_MS = /(?<![0-9])1[5-9]\d{11}(?![0-9])/g;
/** How far from the trial's "now" a date or an epoch time may be and still be blanked as today's. */
export const TODAY_WINDOW_MS = 2 * 86_400_000;
/** Per-request values inside text: UUIDs (session and request ids) and tracegate's own run folders. */
const ID_PATTERNS: Array<[RegExp, string]> = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<tracegate:uuid>'],
  // A run folder of tracegate's own (a scratch folder under another temporary root).
  [/tracegate-run-\d+-[A-Za-z0-9]+/g, 'tracegate-run-<tracegate:run>'],
];
/**
 * What a coding CLI writes that differs by run or machine, never the agent's choice. Around a
 * command's output, on every run: Codex's `exec_command` header (`Chunk ID: f01815`, `Wall time:
 * 0.0021 seconds`, `Process running with session ID 12345`), the same as JSON in its code mode
 * (`"chunk_id":"43745a"`, `"wall_time_seconds":0.000008449`, `Wall time 0.2 seconds`) and its older
 * shell tool's `"duration_seconds": 0.1` metadata. In its prompt: the machine's time zone.
 */
const CLI_NOISE: Array<[RegExp, string]> = [
  [/(\bChunk ID: )[0-9A-Za-z]+/g, '$1<tracegate:chunk>'],
  [/(\bWall time:? )\d+(?:\.\d+)?(?=\s*seconds\b)/g, '$1<tracegate:duration>'],
  [/(\bProcess running with session ID )\d+/g, '$1<tracegate:session>'],
  [/("chunk_id\\?"\s*:\s*\\?")[0-9A-Za-z]+/g, '$1<tracegate:chunk>'],
  [/("(?:duration|wall_time)_seconds\\?"\s*:\s*)\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, '$1<tracegate:duration>'],
  // Codex's environment context: `<timezone>Etc/UTC</timezone>`.
  [/(<timezone>)[^<\n]{1,64}(<\/timezone>)/g, '$1<tracegate:timezone>$2'],
];

/**
 * Fields of a conversation's messages that are per request, never the agent's choice: item and call
 * ids (pairing is by position in the key), client metadata, cache keys, user ids. Dropped from the
 * key wherever they appear inside messages (never inside a tool's parameter schema).
 */
export const VOLATILE_FIELDS: ReadonlySet<string> = new Set([
  'id', 'call_id', 'tool_call_id', 'tool_use_id', 'item_id', 'response_id', 'previous_response_id',
  'user_id', 'metadata', 'client_metadata', 'prompt_cache_key', 'cache_control', 'safety_identifier', 'user',
]);

/**
 * Makes a recording independent of where and when it was made: before a request is hashed, the
 * trial's places become placeholders, dates and per-request ids are blanked, and the suite's masks
 * apply. A recorded reply is stored with the places as placeholders (`toStored`) and handed to a
 * later trial with that trial's own places (`fromStored`), so a path the model wrote in one trial
 * folder names the same file in the next one.
 */
export class CassetteNormalizer {
  private readonly places: Array<[RegExp, string, string]>;

  private readonly clocks: number[];

  private readonly releases: RegExp[];
  /** The workspace's own folder name (`3` of `/tmp/tracegate-run-7-AbC/3`) as a path segment under a HOME placeholder. */
  private readonly workspaceName: [RegExp, string] | null;

  /**
   * Only dates and epoch times within two days of one of the places' clocks are blanked, so a date
   * the task itself is about (a release date in a file) still keys the request.
   */
  constructor(places: TrialPlaces = {}, private readonly masks: readonly VolatileMask[] = []) {
    this.clocks = [...(places.clocks ?? [Date.now()])];
    // Whole tokens only, and only a release that reads as one (a digit and a dot): `6.8.0` is not
    // blanked inside `16.8.0.1`, and a bare `5` never is.
    this.releases = (places.osReleases ?? [os.release()])
      .filter((r) => /\d\.\d/.test(r))
      .map((r) => new RegExp(`(?<![A-Za-z0-9_.-])${escape(r)}(?![A-Za-z0-9_.-])`, 'g'));
    const list: Array<[string, string]> = [];
    const add = (value: string | undefined, placeholder: string, slug: string | null) => {
      if (!value || value === '/' || value.length < 4) return;
      list.push([value, placeholder]);
      if (slug) list.push([pathSlug(value), slug]);
    };
    add(places.workspace, PLACE.workspace, PLACE.workspaceSlug);
    for (const home of places.homes ?? []) add(home, PLACE.home, PLACE.homeSlug);
    for (const tmp of [...(places.temps ?? []), os.tmpdir()]) add(tmp, PLACE.tmp, null);
    // Longest first: the workspace inside the temporary folder is the workspace, not the folder.
    const seen = new Set<string>();
    this.places = list
      .filter(([value]) => !seen.has(value) && seen.add(value))
      .sort((a, b) => b[0].length - a[0].length)
      .map(([value, placeholder]) => [placeRegex(value), placeholder, value]);
    // An agent's per-project folder in its HOME is often named after the workspace's folder alone
    // (Gemini CLI's `~/.gemini/tmp/<name>`); a trial's folder name is its place in the run (`3`), which
    // another run, a --grep or another -j hands to another task. Only a whole segment under HOME counts.
    const name = places.workspace ? path.basename(places.workspace) : '';
    this.workspaceName = name
      ? [new RegExp(`(${escape(PLACE.home)}(?:/[^\\s/"'\`<>]+)*?)/${escape(name)}(?![A-Za-z0-9_.-])`, 'g'), name]
      : null;
  }

  /** Text with this trial's places as placeholders (what a cassette stores). */
  toStored(text: string): string {
    let out = text;
    for (const [regex, placeholder] of this.places) out = out.replace(regex, placeholder);
    if (this.workspaceName && out.includes(PLACE.home)) out = out.replace(this.workspaceName[0], `$1/${PLACE.workspaceName}`);
    return out;
  }

  /** Stored text with this trial's own places where the placeholders are (the first of each kind). */
  fromStored(text: string): string {
    if (!text.includes('<tracegate:')) return text;
    let out = text;
    for (const placeholder of Object.values(PLACE)) {
      const own = this.places.find(([, p]) => p === placeholder);
      if (own) out = out.split(placeholder).join(own[2]);
    }
    if (this.workspaceName) out = out.split(PLACE.workspaceName).join(this.workspaceName[1]);
    return out;
  }

  /** Text as the cassette key sees it: places, dates, per-request ids, the kernel release and the suite's masks blanked. */
  keyText(text: string): string {
    let out = this.toStored(text);
    for (const mask of this.masks) out = mask.apply(out);
    for (const [regex, placeholder] of [...ID_PATTERNS, ...CLI_NOISE]) out = out.replace(regex, placeholder);
    for (const regex of this.releases) out = out.replace(regex, '<tracegate:os-release>');
    out = out.replace(EPOCH_MS, (m) => (this.isToday(Number(m)) ? '<tracegate:epoch-ms>' : m));
    for (const regex of DATE_PATTERNS) out = out.replace(regex, (m) => (this.isToday(Date.parse(m.replace(/(\d)(?:st|nd|rd|th)\b/, '$1'))) ? '<tracegate:date>' : m));
    return out;
  }

  private isToday(t: number): boolean {
    return Number.isFinite(t) && this.clocks.some((c) => Math.abs(t - c) <= TODAY_WINDOW_MS);
  }

  /**
   * A value as the key sees it: every string through keyText; inside `dropFields` parts (the
   * messages) the volatile fields are removed too.
   */
  key<T>(value: T, dropFields = false): T {
    return this.walk(value, dropFields) as T;
  }

  private walk(value: unknown, drop: boolean): unknown {
    if (typeof value === 'string') return this.keyText(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v, drop));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (drop && VOLATILE_FIELDS.has(k)) continue;
        out[k] = this.walk(v, drop);
      }
      return out;
    }
    return value;
  }

  /** A reply as a cassette stores it: the trial's places as placeholders in its text and arguments. */
  replyToStored(reply: ChatReply): ChatReply {
    return this.mapReply(reply, (s) => this.toStored(s));
  }

  /** A stored reply for this trial: its placeholders filled with this trial's places. */
  replyFromStored(reply: ChatReply): ChatReply {
    return this.mapReply(reply, (s) => this.fromStored(s));
  }

  private mapReply(reply: ChatReply, f: (s: string) => string): ChatReply {
    return {
      ...reply,
      content: reply.content === null ? null : f(reply.content),
      toolCalls: reply.toolCalls.map((c) => ({ ...c, arguments: f(c.arguments) })),
      ...(reply.reasoning ? { reasoning: f(reply.reasoning) } : {}),
    };
  }
}
