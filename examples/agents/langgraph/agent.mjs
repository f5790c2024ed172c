// A LangGraph ReAct agent (@langchain/langgraph 1.7, @langchain/openai 1.5) as a tracegate
// --agent-cmd: agent-input/v1 on stdin, agent-output/v1 on stdout. Chat Completions through the
// trial's capture proxy (OPENAI_BASE_URL / OPENAI_API_KEY); two tools over the trial's workspace.
// The packages come from $TRACEGATE_AGENTS_DIR/langgraph (examples/agents/install.sh).
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const home = process.env.TRACEGATE_AGENTS_DIR ?? path.join(os.homedir(), '.cache', 'tracegate-agents');
const require = createRequire(path.join(home, 'langgraph', 'package.json'));
const load = (name) => import(pathToFileURL(require.resolve(name)).href);
const [{ createReactAgent }, { ChatOpenAI }, { tool }, { z }] = await Promise.all([
  load('@langchain/langgraph/prebuilt'),
  load('@langchain/openai'),
  load('@langchain/core/tools'),
  load('zod'),
]);

const input = JSON.parse(readFileSync(0, 'utf8'));
const inside = (p) => {
  const full = path.resolve(input.workspace, p);
  if (full !== input.workspace && !full.startsWith(input.workspace + path.sep)) throw new Error(`${p} is outside the workspace`);
  return full;
};
const tools = [
  tool(({ path: p }) => readFileSync(inside(p), 'utf8'), { name: 'read_file', description: 'Read a text file of the project.', schema: z.object({ path: z.string() }) }),
  tool(({ path: p }) => readdirSync(inside(p ?? '.')).join('\n'), { name: 'list_files', description: 'List a folder of the project.', schema: z.object({ path: z.string().optional() }) }),
];
const model = new ChatOpenAI({
  model: process.env.OPENAI_MODEL || 'gpt-4o-mini',
  apiKey: process.env.OPENAI_API_KEY,
  configuration: { baseURL: process.env.OPENAI_BASE_URL },
  maxRetries: 0,
});
const agent = createReactAgent({ llm: model, tools, prompt: `You work in ${input.workspace}. Today is ${new Date().toDateString()}. Answer from the files.` });
const result = await agent.invoke({ messages: [{ role: 'user', content: input.prompt }] }, { recursionLimit: 2 * input.max_steps + 1 });
const last = result.messages.at(-1);
process.stdout.write(JSON.stringify({ schema_version: 'agent-output/v1', final_answer: typeof last.content === 'string' ? last.content : JSON.stringify(last.content) }) + '\n');
