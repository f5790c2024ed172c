// A hostile stdio MCP server, raw JSON-RPC so it can break the rules the SDK would enforce. MODE:
//   names     colliding and duplicate tool names, an oversized schema
//   bulky     many large schemas
//   patterns  a catastrophic regex in a schema
//   orphan    a tool leaves a child behind, one crashes saying why on stderr, one replies over 10 MB, one mixes content kinds
//   die       exits at start, saying why on stderr
//   refuse    answers initialize with an error full of terminal escapes
//   hang      starts a child, writes both pids to PIDFILE, never answers initialize
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import readline from 'node:readline';

const MODE = process.env.MODE ?? 'names';
if (MODE === 'die') {
  process.stderr.write('fatal: the config file tickets.toml is missing\n');
  process.exit(1);
}
process.on('SIGTERM', () => {}); // a server that ignores being asked to stop
if (MODE === 'hang') {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  writeFileSync(process.env.PIDFILE, `${process.pid} ${child.pid}`);
  process.stdin.on('data', () => {});
  setInterval(() => {}, 1000);
}
const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');
const tool = (name, inputSchema = { type: 'object', properties: {} }) => ({ name, description: `the tool ${name}`, inputSchema });
const TOOLS = {
  names: [
    tool('a b'),
    tool('a_b'),
    tool('a_b'),
    tool('x'.repeat(70) + '1'),
    tool('x'.repeat(70) + '2'),
    tool('huge', { type: 'object', properties: Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`p${i}`, { type: 'string', description: 'd'.repeat(100) }])) }),
  ],
  orphan: [tool('leave_child'), tool('crash'), tool('flood'), tool('mixed')],
  // 100 tools of about 27 kB each: each under the per-tool limit, together far over what a request should carry.
  bulky: Array.from({ length: 100 }, (_, n) => tool(`bulky_${n}`, { type: 'object', properties: Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`p${i}`, { type: 'string', description: 'd'.repeat(80) }])) })),
  patterns: [
    tool('redos', { type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } }, required: ['q'] }),
    tool('named_pattern', { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'], additionalProperties: false }),
  ],
};
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (MODE === 'hang') return;
  if (m.method === 'initialize' && MODE === 'refuse') {
    send({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message: 'no \u001b[2J\u001b]0;owned\u0007 thanks' } });
  } else if (m.method === 'initialize') {
    send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1' } } });
  } else if (m.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: m.id, result: { tools: TOOLS[MODE] } });
  } else if (m.method === 'tools/call') {
    const reply = (text) => send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text }] } });
    if (m.params.name === 'leave_child') {
      const child = spawn('sleep', ['600'], { stdio: 'ignore' });
      child.unref();
      reply(`child ${child.pid}`);
    } else if (m.params.name === 'crash') {
      process.stderr.write('panic: out of tickets\n', () => process.exit(3));
    } else if (m.params.name === 'flood') reply('F'.repeat(11 * 1024 * 1024));
    else if (m.params.name === 'mixed') {
      const content = [
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'tickets://T-1', mimeType: 'text/plain', text: 'T-1: login broken' } },
        { type: 'resource_link', uri: 'tickets://T-2', name: 'T-2' },
      ];
      send({ jsonrpc: '2.0', id: m.id, result: { content } });
    }
    else reply(`called ${JSON.stringify(m.params.name)}`);
  } else if (m.id !== undefined && m.method) {
    send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'method not found' } });
  }
});
