/**
 * The bare client the throughput bench compares tracegate with: plain `fetch` against the same
 * loopback server, the same request bodies (system prompt, prompt, the harness's tool schemas),
 * the same concurrency and the same number of requests a task, and nothing else.
 *   node dist/bench/bareClient.js BASE_URL TASKS CONCURRENCY TOOL_LOOP(0|1)
 */
import { DEFAULT_SYSTEM_PROMPT } from '../harness/agent/config.js';
import { toolDefinitions } from '../harness/tools/registry.js';

const [baseUrl, tasksArg, concurrencyArg, toolLoopArg] = process.argv.slice(2);
const tasks = Number(tasksArg);
const concurrency = Number(concurrencyArg);
const toolLoop = toolLoopArg === '1';
const tools = toolDefinitions();

interface Message {
  role: string;
  content: string | null;
  tool_calls?: Array<{ id: string }>;
  tool_call_id?: string;
}

async function runTask(i: number): Promise<void> {
  const messages: Message[] = [
    { role: 'system', content: DEFAULT_SYSTEM_PROMPT },
    { role: 'user', content: `${toolLoop ? '[tool] ' : ''}What is 2 + 2? (task ${i})` },
  ];
  for (;;) {
    const response = await fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer not-needed' },
      body: JSON.stringify({ model: 'x', messages, tools, tool_choice: 'auto', temperature: 0 }),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body = (await response.json()) as { choices: Array<{ message: Message }> };
    const message: Message = body.choices[0]!.message;
    if (!message.tool_calls?.length) return;
    messages.push(message, ...message.tool_calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: '4' })));
  }
}

let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < tasks) await runTask(next++);
  }),
);
