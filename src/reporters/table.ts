import Table from 'cli-table3';

/** A cli-table3 table that only colours its borders and headers on a terminal (and never with NO_COLOR). */
export function makeTable(options: ConstructorParameters<typeof Table>[0] = {}): InstanceType<typeof Table> {
  const colour = Boolean(process.stdout.isTTY) && !process.env['NO_COLOR'];
  return new Table({ ...options, style: colour ? { head: ['cyan'] } : { head: [], border: [] } });
}
