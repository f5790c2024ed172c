export type { McpServerSpec } from '../../src/schema/mcpServer.js';
