import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import type { McpServerSpec } from '../schema/mcpServer.js';
import { resolveMcpServerPaths } from '../schema/mcpServerPaths.js';
import { TracegateError } from '../schema/runError.js';
import { regexProblem } from '../schema/safeRegex.js';
import { isKnownEventType, KNOWN_EVENT_TYPES } from '../schema/eventTypes.js';
import { RawTaskSchema, SuiteHeaderSchema, type CheckSpec, type PolicyExpectation, type RawTask, type Task } from '../schema/task.js';
import { judgedSpecIssues } from './judgedSpecIssues.js';
import { workspaceProblem } from './workspaceCheck.js';

/** One problem in a suite file, located to the line and field. */
export interface SuiteIssue {
  file: string;
  line: number;
  field: string | null;
  message: string;
}

export function formatIssue(issue: SuiteIssue): string {
  return `${issue.file}:${issue.line}: ${issue.field ? `field ${issue.field}: ` : ''}${issue.message}`;
}

export class SuiteError extends TracegateError {
  constructor(readonly issues: SuiteIssue[]) {
    super('SUITE_INVALID', issues.map(formatIssue).join('\n'));
  }
}

export interface LoadedSuite {
  path: string;
  sha256: string;
  /** From the header line, with paths resolved against the suite's folder. */
  header: { description: string | null; cassettes: string | null; judgeCassettes: string | null; policy: string | null; priceTable: string | null; mcpServers: McpServerSpec[] | null; errorPatterns: Array<{ pattern: string; error_type: string }>; maskPatterns: Array<{ pattern: string; replacement?: string | undefined }> };
  tasks: Task[];
  /** Accepted but probably wrong (an event type no trace tracegate knows carries); `validate` prints them. */
  warnings: SuiteIssue[];
}

const KNOWN_FIELDS = Object.keys(RawTaskSchema.shape);

function closest(word: string, candidates: readonly string[]): string | null {
  const distance = (a: string, b: string) => {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let prev = row[0]!;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const current = row[j]!;
        row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = current;
      }
    }
    return row[b.length]!;
  };
  let best: string | null = null;
  let bestDistance = Math.max(3, Math.floor(word.length / 3)) + 1;
  for (const c of candidates) {
    const d = distance(word, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

function zodIssues(error: z.ZodError, file: string, line: number): SuiteIssue[] {
  return error.issues.flatMap((issue): SuiteIssue[] => {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const field = base ? `${base}.${key}` : key;
        const hint = base ? null : closest(key, KNOWN_FIELDS);
        return { file, line, field, message: `unknown field${hint ? ` (did you mean ${hint}?)` : ''}` };
      });
    }
    return [{ file, line, field: base || null, message: issue.message }];
  });
}

function policyChecks(field: RawTask['expected_policy']): CheckSpec[] {
  if (field === undefined) return [];
  if (typeof field === 'string') return [{ type: 'policy', decision: field }];
  const list: PolicyExpectation[] = Array.isArray(field) ? field : [field];
  return list.map((p) => ({ type: 'policy', ...p }));
}

/** Shorthand fields, seed aliases and the general list all become the same check objects. */
export function checksOf(raw: RawTask): CheckSpec[] {
  const checks: CheckSpec[] = [];
  const contains = raw.expected_contains ?? raw.expected_final_contains;
  if (contains) {
    checks.push({ type: 'contains', values: contains, ...(raw.case_sensitive ? { case_sensitive: true } : {}) });
  }
  const errorTypes = raw.expected_error_types ?? (raw.expected_error_type ? [raw.expected_error_type] : undefined);
  if (errorTypes) checks.push({ type: 'error_types', types: errorTypes });
  if (raw.expected_event_type) checks.push({ type: 'event_type', value: raw.expected_event_type });
  checks.push(...policyChecks(raw.expected_policy));
  if (raw.expected_tools) checks.push({ type: 'tool_called', tools: raw.expected_tools });
  if (raw.max_steps !== undefined && raw.tool_call === undefined) checks.push({ type: 'max_steps', max: raw.max_steps });
  checks.push(...(raw.checks ?? []));
  // An agent task must at least finish; max_steps already says so.
  const prompted = raw.tool_call === undefined;
  if (prompted && !checks.some((c) => c.type === 'max_steps' || c.type === 'completed')) {
    checks.unshift({ type: 'completed' });
  }
  return checks;
}

function regexIssues(checks: CheckSpec[], file: string, line: number): SuiteIssue[] {
  return checks.flatMap((check) => {
    if (check.type !== 'policy' || check.match === undefined) return [];
    const problem = regexProblem(check.match);
    return problem ? [{ file, line, field: 'expected_policy.match', message: problem }] : [];
  });
}

/** Outcome and custom checks: what the schema cannot say (one of run/module, files that must exist, regexes). */
function outcomeIssues(raw: RawTask, baseDir: string, file: string, line: number): SuiteIssue[] {
  const issues: SuiteIssue[] = [];
  const add = (field: string, message: string) => issues.push({ file, line, field, message });
  const shown = (p: string) => path.relative(process.cwd(), p) || '.';
  (raw.checks ?? []).forEach((check, i) => {
    const at = `checks.${i}`;
    const regex = (field: string, source: string | undefined) => {
      const problem = source === undefined ? null : regexProblem(source);
      if (problem) add(`${at}.${field}`, problem);
    };
    if (check.type === 'command') regex('output_matches', check.output_matches);
    if (check.type === 'file') {
      if (path.isAbsolute(check.path) || check.path.split(/[\\/]/).includes('..')) add(`${at}.path`, 'must be a path inside the workspace (relative, no ..)');
      regex('matches', check.matches);
      const needsContent = check.contains || check.matches || check.equals || check.json_path;
      if (check.exists === false && needsContent) add(`${at}.exists`, 'exists: false cannot be combined with contains, matches, equals or json_path');
      if ('value' in check && check.json_path === undefined) add(`${at}.value`, 'value needs json_path (the place in the JSON file it is compared with)');
      if (check.equals !== undefined) {
        const fixture = path.resolve(baseDir, check.equals);
        if (!existsSync(fixture) || !statSync(fixture).isFile()) add(`${at}.equals`, `fixture file ${shown(fixture)} does not exist (paths are relative to the suite's folder)`);
      }
    }
    if (check.type === 'changed_files' && !check.only && !check.unchanged && check.max === undefined) add(at, 'a changed_files check needs only, unchanged or max');
    if (check.type === 'custom') {
      if ((check.run === undefined) === (check.module === undefined)) add(`${at}.run`, 'a custom check needs exactly one of run (a command) and module (a JavaScript file)');
      if (check.module !== undefined) {
        const module = path.resolve(baseDir, check.module);
        if (!existsSync(module) || !statSync(module).isFile()) add(`${at}.module`, `${shown(module)} does not exist (paths are relative to the suite's folder)`);
      }
    }
  });
  return issues;
}

/** An event-type check passes only on a trace that carries the name: one nothing writes is likely a typo. */
function eventTypeWarnings(raw: RawTask, file: string, line: number): SuiteIssue[] {
  const named: Array<{ field: string; value: string }> = [];
  if (raw.expected_event_type) named.push({ field: 'expected_event_type', value: raw.expected_event_type });
  (raw.checks ?? []).forEach((check, i) => {
    if (check.type === 'event_type') named.push({ field: `checks.${i}.value`, value: check.value });
  });
  return named
    .filter(({ value }) => !isKnownEventType(value))
    .map(({ field, value }) => {
      const hint = closest(value, KNOWN_EVENT_TYPES);
      const known = hint ? ` (did you mean ${hint}?)` : '';
      return { file, line, field, message: `unknown event type "${value}"${known}: no trace tracegate knows carries it, so the check passes only for an agent that writes it (the README's task format lists the names)` };
    });
}

function fingerprint(raw: RawTask): string {
  const { tags: _tags, metadata: _metadata, ...definition } = raw;
  return createHash('sha256').update(JSON.stringify(definition)).digest('hex').slice(0, 16);
}

/** The optional first line `{"suite": {...}}`, its paths resolved against the suite's folder. */
function parseHeader(json: object, at: { file: string; line: number; baseDir: string }, issues: SuiteIssue[]): LoadedSuite['header'] | null {
  const parsed = SuiteHeaderSchema.safeParse(json);
  if (!parsed.success) {
    issues.push(...zodIssues(parsed.error, at.file, at.line));
    return null;
  }
  const { description, cassettes, judge_cassettes: judgeCassettes, policy, price_table: priceTable, mcp_servers, error_patterns: errorPatterns = [], mask_patterns: maskPatterns = [] } = parsed.data.suite;
  errorPatterns.forEach((p, i) => {
    const problem = regexProblem(p.pattern);
    if (problem) issues.push({ file: at.file, line: at.line, field: `suite.error_patterns.${i}.pattern`, message: problem });
  });
  maskPatterns.forEach((p, i) => {
    const problem = regexProblem(p.pattern);
    if (problem) issues.push({ file: at.file, line: at.line, field: `suite.mask_patterns.${i}.pattern`, message: problem });
  });
  const resolveIn = (p: string | undefined, field: string) => {
    if (p === undefined) return null;
    const absolute = path.resolve(at.baseDir, p);
    if (!existsSync(absolute)) {
      issues.push({ file: at.file, line: at.line, field: `suite.${field}`, message: `${path.relative(process.cwd(), absolute)} does not exist` });
    }
    return path.relative(process.cwd(), absolute) || '.';
  };
  return {
    description: description ?? null,
    cassettes: resolveIn(cassettes, 'cassettes'),
    judgeCassettes: resolveIn(judgeCassettes, 'judge_cassettes'),
    policy: resolveIn(policy, 'policy'),
    priceTable: resolveIn(priceTable, 'price_table'),
    mcpServers: mcp_servers ? resolveMcpServerPaths(mcp_servers, at.baseDir) : null,
    errorPatterns,
    maskPatterns,
  };
}

/**
 * A suite written as one JSON array (a common first try) would otherwise get one "invalid JSON"
 * error a line and no hint; it gets this one issue instead.
 */
function jsonArrayIssue(text: string, file: string): SuiteIssue | null {
  if (!text.trimStart().startsWith('[')) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(json)) return null;
  const line = text.slice(0, text.indexOf('[')).split('\n').length;
  return {
    file,
    line,
    field: null,
    message: `this file is one JSON array of ${json.length} task${json.length === 1 ? "" : "s"}; a suite is JSON Lines: one task object per line (convert with: jq -c '.[]' ${file} > suite.jsonl)`,
  };
}

/**
 * Reads and validates one JSONL suite. Every problem in the file is collected before failing, so a
 * user fixes them in one pass. Blank lines and lines starting with `#` are skipped.
 */
export function loadSuite(file: string): LoadedSuite {
  const display = path.relative(process.cwd(), file) || file;
  if (!existsSync(file) || !statSync(file).isFile()) {
    const what = !existsSync(file) ? 'suite file not found' : statSync(file).isDirectory() ? 'a folder, not a suite file (give its .jsonl file)' : 'not a regular file (give a .jsonl suite file)';
    throw new SuiteError([{ file: display, line: 0, field: null, message: what }]);
  }
  // A byte-order mark (editors on Windows add one) is not part of the first task.
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  const arrayIssue = jsonArrayIssue(text, display);
  if (arrayIssue) throw new SuiteError([arrayIssue]);
  const baseDir = path.dirname(path.resolve(file));
  const issues: SuiteIssue[] = [];
  const tasks: Task[] = [];
  const warnings: SuiteIssue[] = [];
  const firstLine = new Map<string, number>();
  const checkedWorkspaces = new Map<string, string | null>();
  const header: LoadedSuite['header'] = { description: null, cassettes: null, judgeCassettes: null, policy: null, priceTable: null, mcpServers: null, errorPatterns: [], maskPatterns: [] };
  let sawEntry = false;

  text.split(/\r?\n/).forEach((content, index) => {
    const line = index + 1;
    const trimmed = content.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (error) {
      issues.push({ file: display, line, field: null, message: `invalid JSON: ${(error as Error).message}` });
      return;
    }
    if (json === null || typeof json !== 'object' || Array.isArray(json)) {
      issues.push({ file: display, line, field: null, message: 'each line must be one JSON object (a task)' });
      return;
    }
    if ('suite' in json) {
      if (sawEntry) issues.push({ file: display, line, field: 'suite', message: 'the suite header must be the first line' });
      else Object.assign(header, parseHeader(json, { file: display, line, baseDir }, issues));
      sawEntry = true;
      return;
    }
    sawEntry = true;
    const parsed = RawTaskSchema.safeParse(json);
    if (!parsed.success) {
      issues.push(...zodIssues(parsed.error, display, line));
      return;
    }
    const raw = parsed.data;
    const seen = firstLine.get(raw.id);
    if (seen !== undefined) {
      issues.push({ file: display, line, field: 'id', message: `duplicate id "${raw.id}" (first on line ${seen})` });
      return;
    }
    firstLine.set(raw.id, line);

    let workspace: string | null = null;
    if (raw.workspace !== undefined) {
      workspace = path.resolve(baseDir, raw.workspace);
      const problem = workspaceProblem(workspace, baseDir, checkedWorkspaces);
      if (problem) {
        issues.push({ file: display, line, field: 'workspace', message: problem });
        return;
      }
    }
    let hiddenWorkspace: string | null = null;
    if (raw.hidden_workspace !== undefined) {
      hiddenWorkspace = path.resolve(baseDir, raw.hidden_workspace);
      const problem = workspaceProblem(hiddenWorkspace, baseDir, checkedWorkspaces);
      if (problem) {
        issues.push({ file: display, line, field: 'hidden_workspace', message: problem });
        return;
      }
    }
    const outcomeProblems = outcomeIssues(raw, baseDir, display, line);
    if (outcomeProblems.length > 0) {
      issues.push(...outcomeProblems);
      return;
    }
    const checks = checksOf(raw);
    warnings.push(...eventTypeWarnings(raw, display, line));
    const badRegex = [...regexIssues(checks, display, line), ...judgedSpecIssues(raw.checks ?? []).map((i) => ({ file: display, line, ...i }))];
    if (badRegex.length > 0) {
      issues.push(...badRegex);
      return;
    }
    tasks.push({
      id: raw.id,
      source: { file: display, line },
      prompt: raw.prompt ?? raw.task ?? null,
      toolCall: raw.tool_call ? { ...raw.tool_call, execute: raw.execute ?? true } : null,
      workspace,
      ...(hiddenWorkspace ? { hiddenWorkspace } : {}),
      suiteDir: baseDir,
      maxSteps: raw.max_steps ?? null,
      timeoutMs: raw.timeout_ms ?? null,
      ...(raw.shell_timeout_ms !== undefined || raw.output_cap !== undefined
        ? { toolLimits: { shellTimeoutMs: raw.shell_timeout_ms, outputCap: raw.output_cap } }
        : {}),
      tags: raw.tags ?? [],
      checks,
      fingerprint: fingerprint(raw),
      metadata: raw.metadata ?? {},
    });
  });

  if (issues.length > 0) throw new SuiteError(issues);
  if (tasks.length === 0) throw new SuiteError([{ file: display, line: 0, field: null, message: 'the suite has no tasks' }]);
  return { path: display, sha256: createHash('sha256').update(text).digest('hex'), header, tasks, warnings };
}

/** Loads several suites; ids must be unique across them. Collects every file's issues. */
export function loadSuites(files: string[]): LoadedSuite[] {
  const suites: LoadedSuite[] = [];
  const issues: SuiteIssue[] = [];
  for (const file of files) {
    try {
      suites.push(loadSuite(file));
    } catch (error) {
      if (error instanceof SuiteError) issues.push(...error.issues);
      else throw error;
    }
  }
  const owner = new Map<string, Task>();
  for (const suite of suites) {
    for (const task of suite.tasks) {
      const first = owner.get(task.id);
      if (first) {
        issues.push({ ...task.source, field: 'id', message: `duplicate id "${task.id}" (also ${first.source.file}:${first.source.line})` });
      } else owner.set(task.id, task);
    }
  }
  if (issues.length > 0) throw new SuiteError(issues);
  return suites;
}
