// CPU time by process from /proc, for the benches that say where the CPU of a call goes (cpu.ts, traces.ts).
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

function stat(pid: number): { ppid: number; comm: string; ticks: number; sys: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const f = text.slice(close + 2).split(' ');
    return { ppid: Number(f[1]), comm, ticks: Number(f[11]) + Number(f[12]), sys: Number(f[12]) };
  } catch {
    return undefined; // gone between the listing and the read
  }
}

export function processes() {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => ({ pid: Number(d), ...stat(Number(d)) }))
    .filter((p): p is { pid: number; ppid: number; comm: string; ticks: number; sys: number } => p.ticks !== undefined);
}

/**
 * CPU ms per call of each process group over whatever `during` does, and the share of it spent in the kernel.
 * Per process: what it spent between the two samples (a process started meanwhile counts whole; one that ended
 * meanwhile, such as a PostgreSQL backend closed by its pool, is lost).
 */
export async function cpuDuring(groups: Record<string, (p: { pid: number; ppid: number; comm: string }) => boolean>, during: () => Promise<number>) {
  const before = new Map(processes().map((p) => [p.pid, p]));
  const calls = await during();
  const after = processes();
  const perCall: Record<string, number> = {};
  const sysShare: Record<string, number> = {};
  for (const [name, match] of Object.entries(groups)) {
    let ticks = 0;
    let sys = 0;
    for (const p of after.filter(match)) {
      const b = before.get(p.pid);
      ticks += p.ticks - (b?.ticks ?? 0);
      sys += p.sys - (b?.sys ?? 0);
    }
    perCall[name] = (ticks * TICK_MS) / calls;
    sysShare[name] = ticks ? sys / ticks : 0;
  }
  return { calls, perCall, sysShare };
}

