import Table from 'cli-table3';
import { terminalSafe } from './terminalSafe.js';

/** A cli-table3 table that only colours its borders and headers on a terminal (and never with NO_COLOR). */
export function makeTable(options: ConstructorParameters<typeof Table>[0] = {}): InstanceType<typeof Table> {
  const colour = Boolean(process.stdout.isTTY) && !process.env['NO_COLOR'];
  const table = new Table({ ...options, ...(options.head ? { head: options.head.map(terminalSafe) } : {}), style: colour ? { head: ['cyan'] } : { head: [], border: [] } });
  // Cells hold a report's text (task ids, answers, evidence): shown, never obeyed by the terminal.
  const push = table.push.bind(table);
  table.push = (...rows) => push(...rows.map((row) => (Array.isArray(row) ? row.map((cell) => (typeof cell === 'string' ? terminalSafe(cell) : cell)) : row)));
  return table;
}
