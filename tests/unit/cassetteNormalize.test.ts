import os from 'node:os';
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

  it('a HOME of /root is a place only where a path starts: never in a closing tag or inside another path', () => {
    // Codex 0.171's environment context, as a trial whose tracegate HOME is /root sees it.
    expect(n.toStored('<workspace_roots><root>/tmp/tracegate-run-7-AbC/3</root></workspace_roots> /srv/root ~/root x/root "/root/.npmrc" (/root)')).toBe(
      '<workspace_roots><root><tracegate:workspace></root></workspace_roots> /srv/root ~/root x/root "<tracegate:home>/.npmrc" (<tracegate:home>)',
    );
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

  it('the chunk id, wall time and session id around a Codex command’s output are blanked in the key; the output is kept', () => {
    // A function_call_output as Codex 0.171's exec_command sends it.
    const first = 'Chunk ID: f01815\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 7\nOutput:\nThe launch code is AZURE-7.\n';
    const second = 'Chunk ID: 141cb3\nWall time: 0.0213 seconds\nProcess exited with code 0\nOriginal token count: 7\nOutput:\nThe launch code is AZURE-7.\n';
    expect(n.keyText(first)).toBe('Chunk ID: <tracegate:chunk>\nWall time: <tracegate:duration> seconds\nProcess exited with code 0\nOriginal token count: 7\nOutput:\nThe launch code is AZURE-7.\n');
    expect(n.keyText(second)).toBe(n.keyText(first));
    expect(n.keyText('Chunk ID: 9a\nWall time: 10.0021 seconds\nProcess running with session ID 4242\nOutput:\n')).toBe('Chunk ID: <tracegate:chunk>\nWall time: <tracegate:duration> seconds\nProcess running with session ID <tracegate:session>\nOutput:\n');
    expect(n.keyText('{"output":"hi\\n","metadata":{"exit_code":0,"duration_seconds":0.5}}')).toBe('{"output":"hi\\n","metadata":{"exit_code":0,"duration_seconds":<tracegate:duration>}}');
    // Codex's code mode: its exec cell's header and exec_command's result as JSON.
    expect(n.keyText('Script completed\nWall time 0.2 seconds\nOutput:\n{"chunk_id":"43745a","wall_time_seconds":0.000008449,"exit_code":0,"original_token_count":7,"output":"AZURE-7\\n"} {"wall_time_seconds":1e-7}')).toBe(
      'Script completed\nWall time <tracegate:duration> seconds\nOutput:\n{"chunk_id":"<tracegate:chunk>","wall_time_seconds":<tracegate:duration>,"exit_code":0,"original_token_count":7,"output":"AZURE-7\\n"} {"wall_time_seconds":<tracegate:duration>}',
    );
    // The machine's zone in Codex's environment context.
    expect(n.keyText('<shell>bash</shell>\n  <timezone>Europe/Berlin</timezone>')).toBe(n.keyText('<shell>bash</shell>\n  <timezone>Etc/UTC</timezone>'));
    // A different exit code or output still keys differently.
    expect(n.keyText(first.replace('code 0', 'code 1'))).not.toBe(n.keyText(first));
  });

  it('per-request fields are dropped inside messages, never inside a tool schema', () => {
    expect(n.key([{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }], id: 'msg_1', metadata: { user_id: 'u' } }], true)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ]);
    expect(n.key({ properties: { id: { type: 'string' } } })).toEqual({ properties: { id: { type: 'string' } } });
  });

  it('the machine’s kernel release is blanked in the key as a whole token, so a recording replays on another machine', () => {
    const here = new CassetteNormalizer({ osReleases: ['6.18.44-fc-v1045'], clocks: [NOW] });
    const ci = new CassetteNormalizer({ osReleases: ['6.8.0-1017-azure'], clocks: [NOW] });
    // Claude Code 2.1.197's system prompt, as each machine writes it.
    expect(here.keyText(' - OS Version: Linux 6.18.44-fc-v1045\n')).toBe(' - OS Version: Linux <tracegate:os-release>\n');
    expect(ci.keyText(' - OS Version: Linux 6.8.0-1017-azure\n')).toBe(here.keyText(' - OS Version: Linux 6.18.44-fc-v1045\n'));
    // Not inside a longer version, not a release with no dot, and never in what a cassette stores.
    const darwin = new CassetteNormalizer({ osReleases: ['23.1.0', '5'], clocks: [NOW] });
    expect(darwin.keyText('Darwin 23.1.0; lib 123.1.0, 23.1.0.4, v5')).toBe('Darwin <tracegate:os-release>; lib 123.1.0, 23.1.0.4, v5');
    expect(here.toStored('Linux 6.18.44-fc-v1045')).toBe('Linux 6.18.44-fc-v1045');
    expect(new CassetteNormalizer().keyText(`Linux ${os.release()}`)).toBe('Linux <tracegate:os-release>');
  });

  it('a mask pattern RE2 cannot run is refused with the reason', () => {
    expect(() => volatileMask('(?<=pid )\\d+')).toThrow(/not a usable regular expression/);
  });
});
