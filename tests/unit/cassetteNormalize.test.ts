import { describe, expect, it } from 'vitest';
import { CassetteNormalizer, pathSlug, volatileMask } from '../../src/capture/cassetteNormalize.js';

const NOW = Date.parse('2026-06-10T12:00:00Z');

describe('cassette normalization', () => {
  const n = new CassetteNormalizer({ workspace: '/tmp/tracegate-run-7-AbC/3', homes: ['/tmp/tracegate-run-7-XyZ/home', '/root'], temps: ['/var/tmp/x', '/tmp'], clocks: [NOW] }, [volatileMask('pgid=[0-9]+')]);

  it('the trial’s places and their slug forms become placeholders, longest first, and come back as another trial’s', () => {
    expect(pathSlug('/tmp/tracegate-run-7-AbC/3')).toBe('-tmp-tracegate-run-7-AbC-3');
    expect(n.toStored('cd /tmp/tracegate-run-7-AbC/3/src && ls ~/.claude/projects/-tmp-tracegate-run-7-AbC-3 /root/.codex /tmp/other /tmpx'))
      .toBe('cd <tracegate:workspace>/src && ls ~/.claude/projects/<tracegate:workspace-slug> <tracegate:home>/.codex <tracegate:tmp>/other /tmpx');
    // A place is a path's beginning, never the end of another path (Gemini CLI's `~/.gemini/tmp`, `/var/tmp`).
    expect(n.toStored('/root/.gemini/tmp/x /var/tmp/y `/tmp/z` file:///tmp/w')).toBe('<tracegate:home>/.gemini/tmp/x /var/tmp/y `<tracegate:tmp>/z` file://<tracegate:tmp>/w');
    const other = new CassetteNormalizer({ workspace: '/tmp/tracegate-run-9-QqQ/1', homes: ['/h/home'] });
    expect(other.fromStored('<tracegate:workspace>/a.py in <tracegate:workspace-slug>, <tracegate:home>/x')).toBe('/tmp/tracegate-run-9-QqQ/1/a.py in -tmp-tracegate-run-9-QqQ-1, /h/home/x');
  });

  it('the workspace’s folder name as a whole path segment under HOME (Gemini CLI’s ~/.gemini/tmp/<name>) is a placeholder, and comes back as another trial’s', () => {
    // What Gemini CLI 0.61 puts into its prompt when it runs in /tmp/tracegate-run-7-AbC/3 with that HOME.
    const prompt = "The project's temporary directory is: /tmp/tracegate-run-7-XyZ/home/.gemini/tmp/3\n(`/root/.gemini/tmp/3/memory/MEMORY.md`)";
    expect(n.toStored(prompt)).toBe("The project's temporary directory is: <tracegate:home>/.gemini/tmp/<tracegate:workspace-name>\n(`<tracegate:home>/.gemini/tmp/<tracegate:workspace-name>/memory/MEMORY.md`)");
    // Another trial, another folder number: the same key; its own name filled back into a stored reply.
    const other = new CassetteNormalizer({ workspace: '/tmp/tracegate-run-9-QqQ/1', homes: ['/h/home'], clocks: [NOW] });
    expect(other.keyText('is: /h/home/.gemini/tmp/1')).toBe(n.keyText('is: /root/.gemini/tmp/3'));
    expect(other.fromStored('<tracegate:home>/.gemini/tmp/<tracegate:workspace-name>/plans')).toBe('/h/home/.gemini/tmp/1/plans');
    // Not a longer name, not outside HOME, not the workspace's own files.
    expect(n.toStored('/root/.gemini/tmp/30 /root/v3.1 /srv/3 /tmp/tracegate-run-7-AbC/3/3')).toBe('<tracegate:home>/.gemini/tmp/30 <tracegate:home>/v3.1 /srv/3 <tracegate:workspace>/3');
  });

  it('today’s dates, epoch milliseconds and UUIDs are blanked in the key; a date two weeks away is kept', () => {
    expect(n.keyText("Today's date is 2026-06-10. Also Wednesday, June 10, 2026; Wed Jun 10 2026; Wed Jun 10 12:00:01 UTC 2026; 6/11/2026; at 2026-06-09T23:59:59.123Z"))
      .toBe("Today's date is <tracegate:date>. Also <tracegate:date>; <tracegate:date>; <tracegate:date>; <tracegate:date>; at <tracegate:date>");
    expect(n.keyText('released 2026-05-27, id gemini-1781092800000-a, session 1b4e28ba-2fa1-11d2-883f-0016d3cca427, pgid=4242')).toBe(
      'released 2026-05-27, id gemini-<tracegate:epoch-ms>-a, session <tracegate:uuid>, <masked>',
    );
  });

  it('per-request fields are dropped inside messages, never inside a tool schema', () => {
    expect(n.key([{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }], id: 'msg_1', metadata: { user_id: 'u' } }], true)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ]);
    expect(n.key({ properties: { id: { type: 'string' } } })).toEqual({ properties: { id: { type: 'string' } } });
  });

  it('a mask pattern RE2 cannot run is refused with the reason', () => {
    expect(() => volatileMask('(?<=pid )\\d+')).toThrow(/not a usable regular expression/);
  });
});
