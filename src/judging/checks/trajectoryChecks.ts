import { safeRegex } from '../../schema/safeRegex.js';
import { toolAttr, toolSpans, type Span, type Trace } from '../../schema/trace.js';
import { jsonSchemaErrors } from './jsonSchema.js';
import { result, type Check } from './checkResult.js';

function calls(trace: Trace): Array<{ span: Span; name: string }> {
  return toolSpans(trace).map((span) => ({ span, name: toolAttr(span).name }));
}

const list = (names: readonly string[]) => names.join(' → ');

/**
 * The modes (the README's task-format table says the same):
 * - exact: the calls are these tools, in this order, and nothing else;
 * - in_order: the first call of each listed tool comes in the listed order (other calls anywhere);
 * - subsequence: the list appears among the calls in order, other calls between allowed;
 * - any_order: each listed tool is called (a name listed twice needs two calls), any order.
 */
export const toolSequence: Check<'tool_sequence'> = (trace, spec) => {
  const mode = spec.mode ?? 'in_order';
  const all = calls(trace);
  const names = all.map((c) => c.name);
  const saw = names.length === 0 ? 'no tool calls' : `calls ${list(names)}`;
  const ids = all.filter((c) => spec.tools.includes(c.name)).map((c) => c.span.span_id);
  const verdict = (passed: boolean, why: string) => result('tool_sequence', passed, `${mode}: ${why}`, ids);
  if (mode === 'exact') {
    const same = names.length === spec.tools.length && names.every((n, i) => n === spec.tools[i]);
    return verdict(same, same ? `called exactly ${list(spec.tools)}` : `expected exactly ${list(spec.tools)}, saw ${saw}`);
  }
  if (mode === 'subsequence') {
    let next = 0;
    for (const n of names) if (n === spec.tools[next]) next++;
    const done = next >= spec.tools.length;
    return verdict(done, done ? `${list(spec.tools)} appear in order` : `${list(spec.tools)} not found in order (matched up to ${spec.tools[next]}); saw ${saw}`);
  }
  if (mode === 'any_order') {
    const left = [...names];
    const missing = spec.tools.filter((t) => {
      const at = left.indexOf(t);
      if (at < 0) return true;
      left.splice(at, 1);
      return false;
    });
    return verdict(missing.length === 0, missing.length === 0 ? `called ${spec.tools.join(', ')}` : `missing ${missing.join(', ')}; saw ${saw}`);
  }
  const firsts = spec.tools.map((t) => names.indexOf(t));
  const missing = spec.tools.filter((_, i) => firsts[i]! < 0);
  if (missing.length > 0) return verdict(false, `never called ${missing.join(', ')}; saw ${saw}`);
  const outOfOrder = firsts.findIndex((at, i) => i > 0 && at < firsts[i - 1]!);
  return outOfOrder < 0
    ? verdict(true, `first calls in order ${list(spec.tools)}`)
    : verdict(false, `${spec.tools[outOfOrder]} was first called before ${spec.tools[outOfOrder - 1]}; saw ${saw}`);
};

/** `expected` is a subset of `actual`: objects by key (recursively), everything else equal. */
export function jsonSubset(expected: unknown, actual: unknown): boolean {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([k, v]) => Object.hasOwn(actual, k) && jsonSubset(v, (actual as Record<string, unknown>)[k]));
  }
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && expected.length === actual.length && expected.every((v, i) => jsonSubset(v, actual[i]));
  }
  return Object.is(expected, actual) || expected === actual;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function atPath(value: unknown, dotted: string): { found: boolean; value: unknown } {
  let here: unknown = value;
  for (const key of dotted.split('.')) {
    if (here === null || typeof here !== 'object' || !Object.hasOwn(here, key)) return { found: false, value: undefined };
    here = (here as Record<string, unknown>)[key];
  }
  return { found: true, value: here };
}

type ToolArgsSpec = Parameters<Check<'tool_args'>>[1];

/** Why one call's arguments fail the spec, or null when they pass. */
function argumentsProblem(raw: string, spec: ToolArgsSpec): string | null {
  let args: unknown;
  try {
    args = JSON.parse(raw);
  } catch {
    return `arguments are not JSON: ${raw.slice(0, 80)}`;
  }
  if (spec.match !== undefined && !jsonSubset(spec.match, args)) return `arguments ${raw.slice(0, 120)} do not contain ${JSON.stringify(spec.match).slice(0, 120)}`;
  for (const [field, rule] of Object.entries(spec.fields ?? {})) {
    const hit = atPath(args, field);
    if (!hit.found) return `argument ${field} is missing`;
    const type = jsonType(hit.value);
    if (rule.type !== undefined) {
      const fits = rule.type === 'integer' ? Number.isInteger(hit.value) : type === rule.type;
      if (!fits) return `argument ${field} is ${type} ${JSON.stringify(hit.value).slice(0, 60)}, expected ${rule.type}`;
    }
    if (rule.pattern !== undefined) {
      const text = typeof hit.value === 'string' ? hit.value : JSON.stringify(hit.value);
      if (!safeRegex(rule.pattern).test(text)) return `argument ${field} ${JSON.stringify(text).slice(0, 80)} does not match /${rule.pattern}/`;
    }
  }
  if (spec.schema !== undefined) {
    const errors = jsonSchemaErrors(spec.schema, args);
    if (errors) return `arguments fail the schema: ${errors}`;
  }
  return null;
}

export const toolArgs: Check<'tool_args'> = (trace, spec) => {
  const which = spec.call ?? 'any';
  const matching = calls(trace).filter((c) => c.name === spec.tool);
  if (matching.length === 0) return result('tool_args', false, `${spec.tool} was never called`);
  const judged = (which === 'first' ? matching.slice(0, 1) : matching).map((c) => ({ id: c.span.span_id, problem: argumentsProblem(toolAttr(c.span).arguments, spec) }));
  const good = judged.filter((j) => j.problem === null);
  const bad = judged.filter((j) => j.problem !== null);
  const passed = which === 'any' ? good.length > 0 : bad.length === 0;
  if (passed) {
    const what = which === 'first' ? 'the first call' : which === 'every' ? `all ${judged.length} calls` : `${good.length} of ${judged.length} calls`;
    return result('tool_args', true, `${spec.tool}: ${what} had the expected arguments`, good.map((g) => g.id));
  }
  const what = which === 'any' ? `none of ${judged.length} calls had the expected arguments` : which === 'first' ? 'the first call' : `${bad.length} of ${judged.length} calls`;
  return result('tool_args', false, `${spec.tool}: ${what}: ${bad[0]!.problem}`, bad.map((b) => b.id));
};

export const toolNotCalled: Check<'tool_not_called'> = (trace, spec) => {
  const hits = calls(trace).filter((c) => spec.tools.includes(c.name));
  const named = [...new Set(hits.map((h) => h.name))];
  return hits.length === 0
    ? result('tool_not_called', true, `never called ${spec.tools.join(', ')}`)
    : result('tool_not_called', false, `called ${named.join(', ')} (${hits.length} call${hits.length === 1 ? '' : 's'}), which the task forbids`, hits.map((h) => h.span.span_id));
};

export const toolCount: Check<'tool_count'> = (trace, spec) => {
  const hits = calls(trace).filter((c) => spec.tool === undefined || c.name === spec.tool);
  const n = hits.length;
  const what = spec.tool === undefined ? 'tool calls' : `calls of ${spec.tool}`;
  const range = spec.min !== undefined && spec.max !== undefined ? `${spec.min} to ${spec.max}` : spec.min !== undefined ? `at least ${spec.min}` : `at most ${spec.max}`;
  const passed = (spec.min === undefined || n >= spec.min) && (spec.max === undefined || n <= spec.max);
  return result('tool_count', passed, `${n} ${what}, expected ${range}`, hits.map((h) => h.span.span_id));
};

export const noToolErrors: Check<'no_tool_errors'> = (trace, spec) => {
  const allowed = new Set<string>(spec.except ?? []);
  const errors = toolSpans(trace).filter((s) => {
    const a = toolAttr(s);
    return (!a.ok || a.errorType !== null) && !(a.errorType !== null && allowed.has(a.errorType));
  });
  if (errors.length === 0) return result('no_tool_errors', true, `no tool call failed${allowed.size ? ` (except ${[...allowed].join(', ')})` : ''}`);
  const first = toolAttr(errors[0]!);
  return result('no_tool_errors', false, `${errors.length} tool call${errors.length === 1 ? '' : 's'} failed, first ${first.name}: ${first.errorType ?? 'error'}`, errors.map((s) => s.span_id));
};
