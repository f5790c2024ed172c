import { readdirSync, readFileSync } from 'node:fs';

/**
 * The pids of every live process below `root` (children, grandchildren, …), read from /proc by
 * parent pid. Linux; elsewhere empty. A process that already left the tree (a daemon whose parent
 * exited) is not found.
 */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const { pid, ppid } of processes()) {
    const list = children.get(ppid) ?? [];
    list.push(pid);
    children.set(ppid, list);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (found.includes(child)) continue;
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** SIGKILL each pid still alive; a pid already gone is fine. */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** The pids of every live process in session `sid` but its leader (the server, stopped by the SDK). */
export function sessionMembers(sid: number): number[] {
  return processes()
    .filter((p) => p.sid === sid && p.pid !== sid)
    .map((p) => p.pid);
}

function processes(): Array<{ pid: number; ppid: number; sid: number }> {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: Array<{ pid: number; ppid: number; sid: number }> = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp session …: comm may hold spaces and parentheses, so count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    found.push({ pid: Number(entry), ppid: Number(fields[1]), sid: Number(fields[3]) });
  }
  return found;
}
