import path from 'node:path';
import type { McpServerSpec } from './mcpServer.js';

/** `./server.mjs` and `../x` in an MCP server's command or arguments are relative to the file that names it. */
export function resolveMcpServerPaths(specs: readonly McpServerSpec[], baseDir: string): McpServerSpec[] {
  const resolve = (value: string) => (value.startsWith('./') || value.startsWith('../') ? path.resolve(baseDir, value) : value);
  return specs.map((spec) => ({ ...spec, command: resolve(spec.command), args: spec.args.map(resolve) }));
}
