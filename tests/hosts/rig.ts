/**
 * One host run's surroundings: the simulator with its demo seed on a private socket, a
 * throwaway home the host may write, the configuration exactly as `config --host` prints it,
 * and an environment that keeps every byte on 127.0.0.1.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { z } from "zod";
import { type Simulator, startSimulator } from "../../src/simulator/mod.ts";
import { seedDemo } from "../../src/simulator/seed.ts";
import { seedClaim, seeder } from "../e2e/seed.ts";
import { isRecord } from "./fake_model.ts";
import { cacheRoot } from "./install.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const BUNDLE_ENTRY = join(ROOT, "dist", "main.js");

/** The parts of `config --json` the suite uses. */
export const configOutput = z.object({
  version: z.literal(1),
  config: z.object({
    host: z.string(),
    command: z.string(),
    args: z.array(z.string()),
    env: z.record(z.string(), z.string()),
    configuration: z.string(),
    configurationTarget: z.string(),
    setupCommand: z.string().nullable(),
    notes: z.array(z.string()),
  }),
});
export type PrintedConfig = z.infer<typeof configOutput>["config"];

/**
 * Runs the project's own `config` command (the `deno task config` path) against the bundle,
 * the entry a host can start without a Deno cache in its throwaway home.
 */
export async function printedConfig(
  host: string,
  socket: string,
  extra: string[] = [],
): Promise<PrintedConfig> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-env=PORTREEVE_SOCKET,XDG_STATE_HOME,HOME",
      "--allow-run",
      "--allow-read",
      "--quiet",
      join(ROOT, "scripts", "confined.ts"),
      "run",
      BUNDLE_ENTRY,
      "config",
      "--host",
      host,
      "--socket",
      socket,
      "--json",
      ...extra,
    ],
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  if (!output.success) {
    throw new Error(`config --host ${host} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  return configOutput.parse(JSON.parse(text)).config;
}

/**
 * `config` with the command and args of its `portreeve` server entry replaced by `entry`, in
 * the host's own configuration language; nothing else in the entry changes.
 */
export function withServerEntry(
  config: PrintedConfig,
  entry: { command: string; args: string[] },
): PrintedConfig {
  if (config.host === "codex") {
    const parsed = parseToml(config.configuration);
    const servers = parsed.mcp_servers;
    if (!isRecord(servers) || !isRecord(servers.portreeve)) throw new Error("no codex entry");
    Object.assign(servers.portreeve, entry);
    return { ...config, configuration: stringifyToml(parsed) };
  }
  const parsed: unknown = JSON.parse(config.configuration);
  // Most hosts list servers under "mcpServers"; OpenCode under "mcp", as one command list.
  const servers = isRecord(parsed) ? parsed.mcpServers ?? parsed.mcp : undefined;
  if (!isRecord(parsed) || !isRecord(servers) || !isRecord(servers.portreeve)) {
    throw new Error(`no ${config.host} entry in the printed configuration`);
  }
  if (Array.isArray(servers.portreeve.command)) {
    servers.portreeve.command = [entry.command, ...entry.args];
  } else Object.assign(servers.portreeve, entry);
  return { ...config, configuration: JSON.stringify(parsed, null, 2) };
}

export interface Rig {
  sim: Simulator;
  socket: string;
  /** The throwaway home: HOME for the host and every configuration directory under it. */
  home: string;
  /** A folder inside the home the host works in (trusted where a host asks). */
  workdir: string;
  demoRoot: string;
  /** Environment for a host process; nothing from the user's own environment but PATH. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Every raw credential the daemon handed out so far. */
  rawCredentials(): string[];
  close(): Promise<void>;
}

/** Claims added beside the demo seed so one page can hold 200 items. */
export const EXTRA_CLAIMS = 200;

/**
 * `seed: false` leaves the simulator empty (the demo seed and the extra claims are for pages).
 * `hold`, when given, is asked before the simulator handles each state-changing request and
 * the request waits for the promise it returns (a daemon busy with other agents).
 */
export async function startRig(
  options: { seed?: boolean; hold?: () => Promise<void> } = {},
): Promise<Rig> {
  const base = await Deno.makeTempDir({ prefix: "prmcp-hosts-" });
  const socket = join(base, "portreeve.sock");
  // The home lives outside the world-writable /tmp: Gemini CLI ignores a system settings file
  // below a directory others may write.
  const homes = join(cacheRoot(), "homes");
  await Deno.mkdir(homes, { recursive: true, mode: 0o700 });
  const home = await Deno.makeTempDir({ dir: homes, prefix: "home-" });
  const workdir = join(home, "work");
  const demoRoot = join(base, "demo");
  await Deno.mkdir(workdir, { recursive: true });
  await Deno.mkdir(join(home, "tmp"), { recursive: true });
  await Deno.mkdir(demoRoot, { recursive: true });
  const hold = options.hold;
  const sim = await startSimulator({
    socketPath: socket,
    observeHost: false,
    ...(hold === undefined ? {} : { latencyMs: 1, sleep: () => hold() }),
  });
  if (options.seed ?? true) {
    await seedDemo(socket, demoRoot);
    const seed = seeder(socket);
    try {
      for (let i = 0; i < EXTRA_CLAIMS; i++) {
        await seedClaim(seed, "bulk", join(demoRoot, "bulk"), `svc-${String(i).padStart(3, "0")}`);
      }
    } finally {
      seed.close();
    }
  }
  const deadPort = await closedLoopbackPort();
  const proxy = `http://127.0.0.1:${deadPort}`;
  return {
    sim,
    socket,
    home,
    workdir,
    demoRoot,
    env: (extra = {}) => ({
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_CACHE_HOME: join(home, ".cache"),
      XDG_DATA_HOME: join(home, ".local", "share"),
      XDG_STATE_HOME: join(home, ".local", "state"),
      TMPDIR: join(home, "tmp"),
      LANG: "C.UTF-8",
      TERM: "dumb",
      NO_COLOR: "1",
      CI: "1",
      // Update checks and plugin syncs go to a dead proxy and fail at once; the fake model on
      // 127.0.0.1 is reached directly.
      HTTPS_PROXY: proxy,
      HTTP_PROXY: proxy,
      https_proxy: proxy,
      http_proxy: proxy,
      ALL_PROXY: proxy,
      NO_PROXY: "127.0.0.1,localhost",
      no_proxy: "127.0.0.1,localhost",
      DENO_NO_UPDATE_CHECK: "1",
      ...extra,
    }),
    rawCredentials: () => rawCredentials(sim),
    close: async () => {
      // A host may leave a process of its own behind (Cline starts a hub daemon that outlives
      // its run): whatever still runs with this home on its command line is stopped.
      stopProcessesNaming(home);
      await sim.close();
      await Deno.remove(base, { recursive: true }).catch(() => {});
      await Deno.remove(home, { recursive: true }).catch(() => {});
    },
  };
}

/** A loopback port nothing listens on (bound, then released). */
/** Sends SIGTERM to every process of this machine whose command line holds `text`. */
export function stopProcessesNaming(text: string): number[] {
  const stopped: number[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync("/proc")];
  } catch {
    return stopped; // no /proc here (macOS): nothing to look through
  }
  for (const entry of entries) {
    const pid = Number(entry.name);
    if (!Number.isInteger(pid) || pid === Deno.pid) continue;
    let commandLine: string;
    try {
      commandLine = Deno.readTextFileSync(`/proc/${pid}/cmdline`).replaceAll("\0", " ");
    } catch {
      continue; // gone already, or not ours to read
    }
    if (!commandLine.includes(text)) continue;
    try {
      Deno.kill(pid, "SIGTERM");
      stopped.push(pid);
    } catch {
      // gone between the read and the signal
    }
  }
  return stopped;
}

async function closedLoopbackPort(): Promise<number> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  await Promise.resolve();
  return port;
}

/** Lease tokens and launcher credentials in the simulator's state, wherever they sit. */
function rawCredentials(sim: Simulator): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, key: string, depth: number): void => {
    if (depth > 8) return;
    if (typeof value === "string") {
      if (/token|credential|secret/i.test(key) && value.length >= 16) found.add(value);
      return;
    }
    if (value instanceof Map) {
      for (const [k, v] of value) visit(v, String(k), depth + 1);
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item, key, depth + 1);
      return;
    }
    if (typeof value === "object" && value !== null) {
      for (const [k, v] of Object.entries(value)) visit(v, k, depth + 1);
    }
  };
  visit(sim.control.state, "", 0);
  return [...found];
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs a host program with a hard time limit; never inherits the user's environment. */
export async function runBounded(
  command: string,
  args: string[],
  options: { env: Record<string, string>; cwd: string; timeoutMs: number; stdin?: string },
): Promise<RunResult> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  try {
    const child = new Deno.Command(command, {
      args,
      env: options.env,
      clearEnv: true,
      cwd: options.cwd,
      stdin: options.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      signal: controller.signal,
    }).spawn();
    if (options.stdin !== undefined) {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(options.stdin));
      await writer.close();
    }
    const output = await child.output();
    const decoder = new TextDecoder();
    return {
      code: output.code,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
      timedOut,
    };
  } finally {
    clearTimeout(timer);
  }
}
