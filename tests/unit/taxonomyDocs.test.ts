import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES, UNKNOWN_RULE } from '../../src/judging/classify/rules.js';
import { SEED_EVENT_ALIASES } from '../../src/schema/eventTypes.js';
import { ERROR_TYPE_FAMILIES } from '../../src/schema/trace.js';
import { ROOT } from '../helpers/cli.js';

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const section = (title: string) => readme.slice(readme.indexOf(`## ${title}`), readme.indexOf('\n## ', readme.indexOf(`## ${title}`) + 3));

describe('the README failure taxonomy and task format', () => {
  it('lists every classifier rule with its layer, in the order the classifier tries them', () => {
    const rows = [...section('Failure taxonomy').matchAll(/^\| (\d+) \| `([A-Z_]+)` \| (\w+) \|/gm)].map((m) => [Number(m[1]), m[2], m[3]]);
    const rules = [...RULES, UNKNOWN_RULE];
    expect(rows).toEqual(rules.map((r, i) => [i + 1, r.reason, r.layer]));
  });

  it('names every member of the PERMISSION_DENIED family and every seed event alias', () => {
    const taxonomy = section('Failure taxonomy');
    for (const member of ERROR_TYPE_FAMILIES.PERMISSION_DENIED!) expect(taxonomy).toContain(`\`${member}\``);
    const eventRow = section('Task format').split('\n').find((l) => l.startsWith('| `expected_event_type`'))!;
    for (const [alias, meaning] of Object.entries(SEED_EVENT_ALIASES)) {
      expect(eventRow).toMatch(new RegExp(`\`${alias}\`(/\`\\w+\`)* = \`${meaning}\``));
    }
  });
});
