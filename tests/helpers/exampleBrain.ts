import type { ChatRequestBody, ScriptedReply } from './openaiServer.js';

/**
 * The "model" behind the loopback server for the example agents: a fixed plan of tool calls per
 * task, chosen by the prompt, then a final answer. Deterministic, so recordings made against it
 * replay exactly; it reads the tool results, so an agent that feeds them back wrongly goes astray.
 */
const PLANS: Array<{ match: RegExp; calls: Array<{ name: string; arguments: string }>; answer: (results: string[]) => string }> = [
  {
    match: /name of the project/,
    calls: [{ name: 'read_file', arguments: '{"path": "README.md"}' }],
    answer: (r) => (r[0]?.includes('Lighthouse') ? 'The project is called Lighthouse.' : 'I could not find the project name.'),
  },
  {
    match: /release date/,
    calls: [
      { name: 'read_file', arguments: '{"path": "NOTES.md"}' },
      { name: 'list_files', arguments: '{"path": "."}' },
      { name: 'read_file', arguments: '{"path": "docs/release-notes.md"}' },
    ],
    answer: (r) => (r[2]?.includes('2026-03-14') ? 'NOTES.md does not exist; the release notes say version 2.1 was released on 2026-03-14.' : 'I could not find the release date.'),
  },
  {
    match: /TODO items/,
    calls: [{ name: 'read_file', arguments: '{"path": "todo.txt"}' }],
    answer: (r) => `There are ${(r[0]?.match(/TODO:/g) ?? []).length} open TODO items.`,
  },
];

export function exampleBrain(body: ChatRequestBody): ScriptedReply {
  const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
  if (!body.tools?.length) return { content: `Title: ${String(user).split(' ').slice(0, 4).join(' ')}` };
  const plan = PLANS.find((p) => p.match.test(String(user)));
  if (!plan) return { content: 'I do not know.' };
  const results = body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
  const step = body.messages.filter((m) => m.role === 'assistant').length;
  const call = plan.calls[step];
  return call ? { tool_calls: [{ id: `call_${step + 1}`, ...call }] } : { content: plan.answer(results) };
}
