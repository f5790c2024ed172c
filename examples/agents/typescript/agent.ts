/**
 * A small tool-calling agent on the `openai` package, evaluated by tracegate with
 *   tracegate run examples/agents/typescript/suite.jsonl --agent-cmd 'node dist/examples/agents/typescript/agent.js'
 * Contract (docs/agents.md): agent-input/v1 JSON on stdin, cwd is the trial's workspace, the answer
 * printed on stdout (here as an agent-output/v1 object). The client reads OPENAI_BASE_URL and
 * OPENAI_API_KEY, which tracegate points at the trial's capture proxy with a dummy key.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';

interface AgentInput {
  task_id: string;
  prompt: string;
  max_steps: number;
}

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ToolResult = { ok: true; result: string } | { ok: false; error_type: string; message: string; recoverable: boolean };

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'list_files', description: 'List the files under a folder of the workspace.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } },
  { type: 'function', function: { name: 'read_file', description: 'Read a text file of the workspace.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } },
];

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full) : [path.relative(process.cwd(), full)];
  });
}

function runTool(name: string, rawArguments: string): ToolResult {
  let args: { path?: unknown };
  try {
    args = JSON.parse(rawArguments || '{}') as { path?: unknown };
  } catch (error) {
    return { ok: false, error_type: 'INVALID_ARGUMENTS', message: (error as Error).message, recoverable: true };
  }
  const full = path.resolve(process.cwd(), String(args.path ?? '.'));
  const root = realpathSync(process.cwd());
  if (full !== root && !full.startsWith(root + path.sep)) return { ok: false, error_type: 'PATH_OUTSIDE_WORKSPACE', message: 'stay inside the workspace', recoverable: true };
  if (name === 'list_files') return { ok: true, result: listFiles(full).sort().join('\n') };
  if (name === 'read_file') {
    if (!existsSync(full) || !statSync(full).isFile()) return { ok: false, error_type: 'FILE_NOT_FOUND', message: `${String(args.path)} does not exist`, recoverable: true };
    return { ok: true, result: readFileSync(full, 'utf8').slice(0, 20_000) };
  }
  return { ok: false, error_type: 'UNKNOWN_TOOL', message: `no tool ${name}`, recoverable: true };
}

async function main(): Promise<void> {
  const input = JSON.parse(readFileSync(0, 'utf8')) as AgentInput;
  const client = new OpenAI({ maxRetries: 2 });
  const model = process.env['OPENAI_MODEL'] ?? 'gpt-4o-mini';
  const usage = { input_tokens: 0, output_tokens: 0 };
  const count = (u: OpenAI.CompletionUsage | undefined) => {
    usage.input_tokens += u?.prompt_tokens ?? 0;
    usage.output_tokens += u?.completion_tokens ?? 0;
  };

  // A side request, as many agents make one (a title for the session): not part of the conversation.
  const title = await client.chat.completions.create({
    model,
    temperature: 0,
    messages: [
      { role: 'system', content: 'Give a title of at most five words for this request.' },
      { role: 'user', content: input.prompt },
    ],
  });
  count(title.usage);

  const messages: Message[] = [
    { role: 'system', content: 'You answer questions about the files in the workspace. Use the tools; answer briefly.' },
    { role: 'user', content: input.prompt },
  ];
  for (let step = 0; step < input.max_steps; step++) {
    const completion = await client.chat.completions.create({ model, temperature: 0, messages, tools });
    count(completion.usage);
    const message = completion.choices[0]!.message;
    const calls = (message.tool_calls ?? []).filter((c) => c.type === 'function');
    if (calls.length === 0) {
      process.stdout.write(JSON.stringify({ schema_version: 'agent-output/v1', final_answer: message.content ?? '', usage }) + '\n');
      return;
    }
    messages.push({ role: 'assistant', content: message.content, tool_calls: calls });
    for (const call of calls) {
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(runTool(call.function.name, call.function.arguments)) });
    }
  }
  process.stdout.write(JSON.stringify({ schema_version: 'agent-output/v1', final_answer: null, usage }) + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`agent failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
