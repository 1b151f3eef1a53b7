// Listener evidence: real TCP listeners from /proc (Linux) merged with listeners injected by
// tests. Also answers process questions (lineage, fingerprints) for both kinds of PID.
import type { ProcessFingerprint } from "./state.ts";

export interface RawListener {
  pid: number;
  port: number;
  host: string;
  fake: boolean;
}

interface FakeProcess {
  pid: number;
  parentPid: number;
  command: string;
  startTime: string;
}

export interface FakeListenerOptions {
  /** Parent PID of the fake process (default 1). */
  ppid?: number;
  /** Command name shown in evidence (default "simulated"). */
  command?: string;
  /** Address shown in `names` (default 127.0.0.1). */
  host?: string;
}

/** One observation of the machine: listeners plus cached process lookups. */
export interface Observation {
  listeners: RawListener[];
  onPort(port: number): RawListener[];
  listeningPorts(): Set<number>;
  process(pid: number): ProcessFingerprint | null;
  /**
   * PIDs from `pid` up through its ancestors (pid first). Like the daemon's walk it stops
   * when the parent is 0 or 1 (or on a loop), so PID 1 is never part of a lineage and can
   * never be a run's root.
   */
  lineage(pid: number): number[];
}

export class EvidenceSource {
  readonly fakeListeners = new Map<number, RawListener[]>();
  readonly fakeProcesses = new Map<number, FakeProcess>();
  /** When false, only injected listeners are seen (tests that need a hermetic machine). */
  useProc = true;

  addListener(port: number, pid: number, opts: FakeListenerOptions = {}, startTime: string): void {
    if (!this.fakeProcesses.has(pid)) {
      this.fakeProcesses.set(pid, {
        pid,
        parentPid: opts.ppid ?? 1,
        command: opts.command ?? "simulated",
        startTime,
      });
    }
    // The declared parent becomes an observable fake process too, unless it really exists,
    // so tests can name it as a run's rootPid.
    const parent = opts.ppid ?? 1;
    // (Without host observation a real parent could not be seen anyway.)
    if (
      parent > 1 && !this.fakeProcesses.has(parent) && !(this.useProc && existsOnHost(parent))
    ) {
      this.fakeProcesses.set(parent, {
        pid: parent,
        parentPid: 1,
        command: "simulated",
        startTime,
      });
    }
    const list = this.fakeListeners.get(port) ?? [];
    list.push({ pid, port, host: opts.host ?? "127.0.0.1", fake: true });
    this.fakeListeners.set(port, list);
  }

  removeListener(port: number, pid?: number): void {
    const list = this.fakeListeners.get(port);
    if (!list) return;
    const kept = pid === undefined ? [] : list.filter((l) => l.pid !== pid);
    if (kept.length) this.fakeListeners.set(port, kept);
    else this.fakeListeners.delete(port);
  }

  /** Checks (once per process) how host evidence can be read; warns on stderr if it cannot. */
  probeHost(): HostAccess {
    return hostAccess();
  }

  observe(): Observation {
    const real = this.useProc ? readProcListeners() : [];
    const fakes = [...this.fakeListeners.values()].flat();
    // A fake listener on a port hides nothing: both kinds are reported, like lsof would.
    const listeners = [...real, ...fakes];
    const processCache = new Map<number, ProcessFingerprint | null>();
    const fakeProcesses = this.fakeProcesses;
    const useProc = this.useProc;
    const process = (pid: number): ProcessFingerprint | null => {
      if (processCache.has(pid)) return processCache.get(pid)!;
      const fake = fakeProcesses.get(pid);
      const fp = fake
        ? {
          pid,
          parentPid: fake.parentPid,
          uid: uid(),
          startTime: fake.startTime,
          executable: `/simulated/bin/${fake.command}`,
          command: fake.command,
          workingDirectory: "/simulated",
        }
        : useProc
        ? readProcProcess(pid)
        : null;
      processCache.set(pid, fp);
      return fp;
    };
    return {
      listeners,
      onPort: (port) => listeners.filter((l) => l.port === port),
      listeningPorts: () => new Set(listeners.map((l) => l.port)),
      process,
      lineage: (pid) => {
        const chain: number[] = [];
        let current: number | null = pid;
        while (current !== null && current > 1 && !chain.includes(current)) {
          chain.push(current);
          current = process(current)?.parentPid ?? null;
        }
        return chain;
      },
    };
  }
}

function existsOnHost(pid: number): boolean {
  return readProcProcess(pid) !== null;
}

function uid(): number {
  try {
    return Deno.uid() ?? 0;
  } catch {
    return 0;
  }
}

function readText(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return null;
  }
}

/** Parses /proc/net/tcp{,6}; returns LISTEN sockets keyed to PIDs via /proc/[pid]/fd. */
function readProcListeners(): RawListener[] {
  // Deno grants /proc only under --allow-all; otherwise ask lsof (needs --allow-run).
  const access = hostAccess();
  if (access.listeners === "lsof") return lsofListeners();
  if (access.listeners === null) return [];
  const byInode = new Map<string, { port: number; host: string }[]>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = readText(file);
    if (!text) continue;
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== "0A") continue;
      const [hexAddr, hexPort] = cols[1].split(":");
      const inode = cols[9];
      if (inode === "0") continue;
      const entry = { port: parseInt(hexPort, 16), host: decodeAddress(hexAddr) };
      const list = byInode.get(inode) ?? [];
      list.push(entry);
      byInode.set(inode, list);
    }
  }
  if (byInode.size === 0) return [];
  const out: RawListener[] = [];
  const seen = new Set<string>();
  let entries: Deno.DirEntry[] = [];
  try {
    entries = [...Deno.readDirSync("/proc")];
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry.name)) continue;
    const pid = Number(entry.name);
    let fds: Deno.DirEntry[];
    try {
      fds = [...Deno.readDirSync(`/proc/${pid}/fd`)];
    } catch {
      continue; // Another user's process, or it just exited.
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = Deno.readLinkSync(`/proc/${pid}/fd/${fd.name}`);
      } catch {
        continue;
      }
      const match = /^socket:\[(\d+)\]$/.exec(target);
      if (!match) continue;
      for (const l of byInode.get(match[1]) ?? []) {
        const key = `${pid}:${l.port}:${l.host}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ pid, port: l.port, host: l.host, fake: false });
      }
    }
  }
  return out;
}

function decodeAddress(hex: string): string {
  if (hex.length === 8) {
    const bytes = [0, 2, 4, 6].map((i) => parseInt(hex.slice(i, i + 2), 16)).reverse();
    return bytes.join(".");
  }
  // IPv6: four little-endian 32-bit words.
  const words: string[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    const le = word.match(/../g)!.reverse().join("");
    words.push(le.slice(0, 4), le.slice(4, 8));
  }
  const text = words.map((w) => parseInt(w, 16).toString(16)).join(":");
  if (text === "0:0:0:0:0:0:0:0") return "::";
  if (text === "0:0:0:0:0:0:0:1") return "::1";
  return text;
}

let bootTimeSeconds: number | null = null;

/** Where host evidence comes from; null = not observable at all. */
interface HostAccess {
  listeners: "proc" | "lsof" | null;
  processes: "proc" | "ps" | null;
  /** Why a source was unusable (empty when /proc works). */
  problems: string[];
}

let access: HostAccess | null = null;

/**
 * Probes what listener and process lookups actually need, once per process. Under Deno 2.x
 * `/proc/<pid>/*`, `/proc/stat` and `readDir("/proc")` need --allow-all even where
 * `/proc/net/tcp` is readable with --allow-read, so reading /proc/net/tcp alone proves
 * nothing. Without /proc, lsof and ps are used when --allow-run grants them. If a source
 * is missing entirely the simulator says so once on stderr instead of seeing nothing.
 */
function hostAccess(): HostAccess {
  if (access) return access;
  const problems: string[] = [];
  const attempt = (what: string, fn: () => unknown): boolean => {
    try {
      fn();
      return true;
    } catch (error) {
      problems.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  };
  const proc = attempt("/proc/net/tcp", () => Deno.readTextFileSync("/proc/net/tcp")) &&
    attempt("/proc/self/stat", () => Deno.readTextFileSync("/proc/self/stat")) &&
    attempt("/proc/stat", () => Deno.readTextFileSync("/proc/stat")) &&
    attempt("readDir /proc", () => Deno.readDirSync("/proc").next()) &&
    attempt("/proc/self/fd", () => Deno.readDirSync("/proc/self/fd").next());
  if (proc) {
    access = { listeners: "proc", processes: "proc", problems: [] };
    return access;
  }
  const runnable = (cmd: string, args: string[]): boolean =>
    attempt(cmd, () => {
      // Never trigger an interactive permission prompt from a probe.
      const state = Deno.permissions.querySync({ name: "run", command: cmd }).state;
      if (state !== "granted") throw new Error(`--allow-run does not grant ${cmd}`);
      new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).outputSync();
    });
  access = {
    listeners: runnable("lsof", ["-v"]) ? "lsof" : null,
    processes: runnable("ps", ["-o", "pid=", "-p", String(Deno.pid)]) ? "ps" : null,
    problems,
  };
  if (access.listeners === null || access.processes === null) {
    const blind = [
      access.listeners === null ? "listeners" : null,
      access.processes === null ? "processes" : null,
    ].filter(Boolean).join(" and ");
    const effect = access.listeners === null
      ? "only injected listeners and fake processes are visible"
      : "host listeners cannot be tied to processes, so confirming them fails";
    console.error(
      `SIMULATED PortReeve daemon: cannot observe host ${blind}; ${effect}. Run with -A ` +
        `(for /proc) or --allow-run (for lsof and ps). Details: ${problems.join("; ")}`,
    );
  }
  return access;
}

function run(cmd: string, args: string[]): string | null {
  try {
    const out = new Deno.Command(cmd, { args, stdout: "piped", stderr: "null" }).outputSync();
    return new TextDecoder().decode(out.stdout);
  } catch {
    return null;
  }
}

/** `lsof -F pn` output: a `p<pid>` line followed by `n<address>:<port>` lines. */
function lsofListeners(): RawListener[] {
  const text = run("lsof", ["-nP", "-iTCP", "-sTCP:LISTEN", "-Fpn"]);
  if (!text) return [];
  const out: RawListener[] = [];
  const seen = new Set<string>();
  let pid = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("p")) pid = Number(line.slice(1));
    if (!line.startsWith("n") || pid <= 0) continue;
    const m = /^n(.*):(\d+)$/.exec(line);
    if (!m) continue;
    const host = m[1] === "*" ? "0.0.0.0" : m[1].replace(/^\[|\]$/g, "");
    const key = `${pid}:${m[2]}:${host}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pid, port: Number(m[2]), host, fake: false });
  }
  return out;
}

function psProcess(pid: number): ProcessFingerprint | null {
  const text = run("ps", ["-o", "pid=,ppid=,uid=,lstart=,comm=", "-p", String(pid)]);
  const m = text
    ? /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\w+ \w+\s+\d+ [\d:]+ \d+)\s+(.+)$/m.exec(text)
    : null;
  if (!m) return null;
  const started = Date.parse(m[4]);
  return {
    pid,
    parentPid: Number(m[2]),
    uid: Number(m[3]),
    startTime: new Date(Number.isFinite(started) ? started : 0).toISOString(),
    executable: m[5].trim(),
    command: m[5].trim(),
    workingDirectory: "/",
  };
}

function readProcProcess(pid: number): ProcessFingerprint | null {
  const source = hostAccess().processes;
  if (source === "ps") return psProcess(pid);
  if (source === null) return null;
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return null;
  // The command is wrapped in parentheses and may itself contain spaces or ')'.
  const close = stat.lastIndexOf(")");
  const command = stat.slice(stat.indexOf("(") + 1, close);
  const fields = stat.slice(close + 2).split(" ");
  const parentPid = Number(fields[1]);
  const startTicks = Number(fields[19]);
  if (bootTimeSeconds === null) {
    const m = /^btime (\d+)$/m.exec(readText("/proc/stat") ?? "");
    bootTimeSeconds = m ? Number(m[1]) : 0;
  }
  // Whole seconds, like the daemon's ps-derived start times.
  const startMs = Math.floor(bootTimeSeconds + startTicks / 100) * 1000;
  const status = readText(`/proc/${pid}/status`) ?? "";
  const uidMatch = /^Uid:\s+(\d+)/m.exec(status);
  const link = (name: string): string => {
    try {
      return Deno.readLinkSync(`/proc/${pid}/${name}`);
    } catch {
      return "";
    }
  };
  return {
    pid,
    parentPid: Number.isFinite(parentPid) ? parentPid : 0,
    uid: uidMatch ? Number(uidMatch[1]) : 0,
    startTime: new Date(startMs).toISOString(),
    executable: link("exe") || command,
    command,
    workingDirectory: link("cwd") || "/",
  };
}

/** The OS ephemeral range, excluded from automatic candidates (Linux default if unreadable). */
export function osEphemeralRange(): { start: number; end: number } {
  const text = readText("/proc/sys/net/ipv4/ip_local_port_range");
  const m = text ? /(\d+)\s+(\d+)/.exec(text) : null;
  return m ? { start: Number(m[1]), end: Number(m[2]) } : { start: 32768, end: 60999 };
}

export function listenerName(l: RawListener): string {
  if (l.host === "0.0.0.0" || l.host === "::") return `*:${l.port}`;
  return l.host.includes(":") ? `[${l.host}]:${l.port}` : `${l.host}:${l.port}`;
}
