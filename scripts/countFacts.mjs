// Counts the facts of the conformance corpus's files straight from their raw bytes, without
// tracegate's importers: per trace, the model calls, the tool calls in order, the failed tool calls
// and the final answer. Its output is tests/fixtures/conformance/<format>/expected.json, which
// tests/unit/traceio/conformance.test.ts compares with what `import` reads.
//   node scripts/countFacts.mjs          (rewrites every expected.json)
//   node scripts/countFacts.mjs --check  (exit 1 when one differs from a fresh count)
// Each format's rule is written from its producer's documentation and code, kept deliberately simple.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync, zipSync } from 'fflate';
import { decompress as unzstd } from 'fzstd';

const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../tests/fixtures/conformance');
const jsonLines = (text) => text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const textOf = (content) =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.filter((b) => isObj(b) && typeof b.text === 'string').map((b) => b.text).join('\n') || null : null;

/** Claude Code: an assistant reply is one `message.id` (one line per content block); tool_use blocks are the calls, is_error results the failures. */
function claudeCode(text) {
  const lines = jsonLines(text).filter((l) => (l.type === 'user' || l.type === 'assistant') && isObj(l.message));
  const replies = new Map();
  const tools = [];
  const failed = new Set();
  for (const l of lines) {
    const content = Array.isArray(l.message.content) ? l.message.content : [{ type: 'text', text: l.message.content }];
    if (l.type === 'assistant') {
      const id = l.message.id ?? l.uuid;
      const reply = replies.get(id) ?? { texts: [], tools: 0, error: l.isApiErrorMessage === true };
      replies.set(id, reply);
      for (const b of content) {
        if (b.type === 'text') reply.texts.push(b.text);
        if (b.type === 'tool_use') {
          tools.push({ id: b.id, name: b.name });
          reply.tools++;
        }
      }
    } else for (const b of content) if (b.type === 'tool_result' && b.is_error === true) failed.add(b.tool_use_id);
  }
  const last = [...replies.values()].at(-1);
  const answer = last && last.tools === 0 && !last.error && last.texts.length > 0 ? last.texts.join('\n') : null;
  return [{ model_calls: replies.size, tool_calls: tools.map((t) => t.name), errors: tools.filter((t) => failed.has(t.id)).length, final_answer: answer }];
}

/** Codex rollout: a model call is a run of model output items (reasoning, assistant message, calls) between inputs; a non-zero exit code fails a call. */
function codex(text) {
  const items = jsonLines(text).map((l) => (l.type === 'response_item' ? l.payload : l.type === undefined && l.payload === undefined ? l : null)).filter(isObj);
  const OUTPUT = new Set(['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call']);
  let calls = 0;
  let inReply = false;
  let lastReply = null;
  const tools = [];
  let errors = 0;
  for (const item of items) {
    const fromModel = OUTPUT.has(item.type) || (item.type === 'message' && item.role === 'assistant');
    if (fromModel && !inReply) {
      calls++;
      lastReply = { text: null, tools: 0 };
    }
    inReply = fromModel;
    if (item.type === 'message' && item.role === 'assistant') lastReply.text = textOf(item.content);
    if (item.type === 'function_call' || item.type === 'custom_tool_call' || item.type === 'local_shell_call') {
      tools.push(item.name ?? item.type);
      lastReply.tools++;
    }
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      const out = typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
      const structured = out.trimStart().startsWith('{') ? JSON.parse(out) : null;
      const code = structured?.metadata?.exit_code ?? Number(/^Exit code: (-?\d+)/m.exec(out)?.[1] ?? 0);
      if (code !== 0) errors++;
    }
  }
  const answer = lastReply && lastReply.tools === 0 ? lastReply.text : null;
  return [{ model_calls: calls, tool_calls: tools, errors, final_answer: answer }];
}

/** OpenHands: a model call is one model_response id (or an agent message without one); actions other than messages and finish are tool calls; a finish's thought or message is the answer. */
function openHands(text) {
  const value = JSON.parse(text);
  const events = Array.isArray(value) ? value : value.trajectory;
  const responses = new Set();
  let calls = 0;
  const tools = [];
  const byId = new Map();
  let errors = 0;
  let answer = null;
  for (const e of events) {
    if (e.source !== 'agent') continue;
    const responseId = e.tool_call_metadata?.model_response?.id;
    if ('action' in e) {
      if (responseId) {
        if (!responses.has(responseId)) calls++;
        responses.add(responseId);
      } else if (e.action === 'message') calls++;
      if (e.action === 'finish') answer = e.args?.final_thought || e.args?.outputs?.content || e.message || null;
      else if (!['message', 'system', 'change_agent_state', 'recall', 'condensation'].includes(e.action)) {
        tools.push(e.tool_call_metadata?.function_name ?? e.action);
        byId.set(e.id, true);
      }
    } else if ('observation' in e && byId.has(e.cause)) {
      const exit = e.extras?.metadata?.exit_code;
      if (e.observation === 'error' || (typeof exit === 'number' && exit !== 0 && exit !== -1)) errors++;
    }
  }
  return [{ model_calls: calls, tool_calls: tools, errors, final_answer: answer }];
}

/** Inspect .eval: each samples/*.json is one trace; model and tool events until scoring begins; a tool event with an error failed; output.completion is the answer. */
function inspectEval(bytes) {
  const zip = unzipSync(zstdMembersInflated(bytes));
  return Object.keys(zip)
    .filter((n) => /^samples\/.+\.json$/.test(n))
    .sort()
    .map((n) => {
      const sample = JSON.parse(new TextDecoder().decode(zip[n]));
      const events = [];
      const walk = (list) => {
        for (const e of list) {
          if ((e.event === 'span_begin' && (e.type === 'scorer' || e.name === 'scorers')) || (e.event === 'score' && e.intermediate !== true)) return false;
          if (e.event === 'model' || e.event === 'tool') events.push(e);
          if (Array.isArray(e.events) && walk(e.events) === false) return false;
        }
        return true;
      };
      walk(sample.events ?? []);
      const modelUuids = new Set();
      let calls = 0;
      for (const e of events.filter((x) => x.event === 'model')) {
        if (e.uuid && modelUuids.has(e.uuid)) continue;
        if (e.uuid) modelUuids.add(e.uuid);
        calls++;
      }
      const tools = events.filter((e) => e.event === 'tool');
      const completion = sample.output?.completion || textOf(sample.output?.choices?.[0]?.message?.content) || null;
      return { model_calls: calls, tool_calls: tools.map((t) => t.function), errors: tools.filter((t) => t.error).length, final_answer: completion };
    });
}

/** fflate reads stored and deflate members only: zstd ones (method 93) are unpacked here and stored again. */
function zstdMembersInflated(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let hasZstd = false;
  for (let at = 0; at + 30 < bytes.length && view.getUint32(at, true) === 0x04034b50; ) {
    const size = view.getUint32(at + 18, true);
    if (view.getUint16(at + 8, true) === 93) hasZstd = true;
    at += 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true) + size;
  }
  if (!hasZstd) return bytes;
  const members = {};
  for (let at = 0; at + 30 < bytes.length && view.getUint32(at, true) === 0x04034b50; ) {
    const nameLength = view.getUint16(at + 26, true);
    const start = at + 30 + nameLength + view.getUint16(at + 28, true);
    const size = view.getUint32(at + 18, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 30, at + 30 + nameLength));
    const data = bytes.subarray(start, start + size);
    members[name] = view.getUint16(at + 8, true) === 93 ? unzstd(data) : data;
    at = start + size;
  }
  return zipStored(members);
}

const zipStored = (members) => zipSync(Object.fromEntries(Object.entries(members).map(([n, d]) => [n, [d, { level: 0 }]])));

/** OTel SDK spans as any-agent saves them (`{spans, final_output}`): call_llm spans are model calls, execute_tool spans the tools (by start), status ERROR a failure; final_output the answer. */
function otelSdkSpans(text) {
  const value = JSON.parse(text);
  const spans = (Array.isArray(value) ? value : value.spans).slice().sort((a, b) => String(a.start_time).localeCompare(String(b.start_time)));
  const op = (s) => s.attributes?.['gen_ai.operation.name'];
  const tools = spans.filter((s) => op(s) === 'execute_tool');
  const out = isObj(value) ? value.final_output : undefined;
  return [
    {
      model_calls: spans.filter((s) => ['call_llm', 'chat', 'text_completion', 'generate_content'].includes(op(s))).length,
      tool_calls: tools.map((s) => s.attributes['gen_ai.tool.name']),
      errors: tools.filter((s) => String(s.status?.status_code).toUpperCase().includes('ERROR')).length,
      final_answer: out === undefined || out === null ? null : typeof out === 'string' ? out : JSON.stringify(out),
    },
  ];
}

/** SWE-agent .traj: a step is a model call and, when its action is not blank, one tool call (the function the history's message named, else the action's first word); info.submission is the answer. No exit codes are recorded. */
function sweAgent(text) {
  const value = JSON.parse(text);
  const assistant = (value.history ?? []).filter((m) => m.role === 'assistant' && !m.is_demo && typeof m.action === 'string');
  const steps = Array.isArray(value.trajectory) ? value.trajectory.map((s) => s.action ?? '') : assistant.map((m) => m.action);
  const tools = [];
  let from = 0;
  for (const action of steps) {
    if (!action.trim()) continue;
    const at = assistant.findIndex((m, i) => i >= from && m.action.trim() === action.trim());
    if (at >= 0) from = at + 1;
    tools.push((at >= 0 ? assistant[at].tool_calls?.[0]?.function?.name : undefined) ?? action.trim().split(/\s+/)[0]);
  }
  return [{ model_calls: steps.length, tool_calls: tools, errors: 0, final_answer: value.info?.submission ?? null }];
}

/** Phoenix / OpenInference span lists (a list, `{data: [...]}`, or an object of named lists): per trace id, LLM spans (the inner one of a nested LLM pair) are model calls, TOOL spans the tools (by start time; `tool.name`, else the span name), status ERROR a failure; the root span's output.value the answer. */
function phoenix(text) {
  const value = JSON.parse(text);
  const spans = Array.isArray(value) ? value : Array.isArray(value.data) ? value.data : Object.values(value).filter(Array.isArray).flat();
  const byTrace = new Map();
  for (const s of spans) {
    const id = s.context?.trace_id;
    byTrace.set(id, [...(byTrace.get(id) ?? []), s]);
  }
  return [...byTrace.values()].map((list) => {
    const sorted = list.slice().sort((a, b) => Date.parse(a.start_time) - Date.parse(b.start_time));
    const kindOf = (s) => String(s.span_kind).toUpperCase();
    const llmParents = new Set(list.filter((s) => kindOf(s) === 'LLM').map((s) => s.parent_id));
    const llm = list.filter((s) => kindOf(s) === 'LLM' && !llmParents.has(s.context?.span_id));
    const tools = sorted.filter((s) => kindOf(s) === 'TOOL');
    const root = list.find((s) => !s.parent_id);
    const out = root?.attributes?.['output.value'];
    return {
      model_calls: llm.length,
      tool_calls: tools.map((s) => s.attributes?.['tool.name'] ?? s.name),
      errors: tools.filter((s) => s.status_code === 'ERROR').length,
      final_answer: typeof out === 'string' && out !== '' ? out : null,
    };
  });
}

/**
 * mini-swe-agent (the bare message list of 1.x, `{info, messages}` since): every assistant message is a model call, and so is every
 * FormatError message of 2.x (its reply was billed but never recorded); 1.x records a rejected reply as an assistant message followed
 * by the format-error text, and it ran nothing. The commands that ran (`extra.actions`, else the reply's bash block) are `bash` calls;
 * the observation's return code (`extra.returncode`, else `<returncode>`) non-zero fails one; info.submission is the answer.
 */
function miniSweAgent(text) {
  const value = JSON.parse(text);
  const messages = Array.isArray(value) ? value : value.messages;
  const rejected = (m) => m?.extra?.interrupt_type === 'FormatError' || (m?.role === 'user' && /^Please always provide EXACTLY ONE action/.test(textOf(m.content) ?? ''));
  let calls = 0;
  const tools = [];
  let errors = 0;
  messages.forEach((m, i) => {
    if (m.role === 'assistant' || m.extra?.interrupt_type === 'FormatError') calls++;
    if (m.role !== 'assistant' || rejected(messages[i + 1])) return;
    const ran = Array.isArray(m.extra?.actions) ? m.extra.actions.length : /```(?:bash|mswea_bash_command)\s*\n/.test(textOf(m.content) ?? '') ? 1 : 0;
    for (let k = 0; k < ran; k++) tools.push('bash');
    for (const obs of messages.slice(i + 1, i + 1 + ran)) {
      const code = obs.extra?.returncode ?? Number(/<returncode>(-?\d+)<\/returncode>/.exec(textOf(obs.content) ?? '')?.[1] ?? 0);
      if (code !== 0) errors++;
    }
  });
  const submission = Array.isArray(value) ? null : value.info?.submission;
  return [{ model_calls: calls, tool_calls: tools, errors, final_answer: submission || null }];
}

const COUNTERS = {
  'swe-agent': (bytes) => sweAgent(new TextDecoder().decode(bytes)),
  'otel-sdk-spans': (bytes) => otelSdkSpans(new TextDecoder().decode(bytes)),
  'claude-code': (bytes) => claudeCode(new TextDecoder().decode(bytes)),
  codex: (bytes) => codex(new TextDecoder().decode(bytes)),
  openhands: (bytes) => openHands(new TextDecoder().decode(bytes)),
  'inspect-eval': inspectEval,
  'mini-swe-agent': (bytes) => miniSweAgent(new TextDecoder().decode(bytes)),
  phoenix: (bytes) => phoenix(new TextDecoder().decode(bytes)),
};

const check = process.argv.includes('--check');
let stale = 0;
for (const format of readdirSync(CORPUS).sort()) {
  const count = COUNTERS[format];
  if (!count) continue;
  const dir = path.join(CORPUS, format);
  const files = readdirSync(dir).filter((f) => !/\.(md|mjs)$/.test(f) && f !== 'expected.json').sort();
  const expected = Object.fromEntries(files.map((f) => [f, { format, traces: count(readFileSync(path.join(dir, f))) }]));
  const text = JSON.stringify(expected, null, 1) + '\n';
  const file = path.join(dir, 'expected.json');
  if (check) {
    let old = '';
    try {
      old = readFileSync(file, 'utf8');
    } catch {}
    if (old !== text) {
      stale++;
      process.stderr.write(`${path.relative(process.cwd(), file)} differs from a fresh count\n`);
    }
  } else writeFileSync(file, text);
}
process.exitCode = stale > 0 ? 1 : 0;
