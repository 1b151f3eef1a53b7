/**
 * The three ways a reader runs portreeve-mcp, set up in a temporary folder, for the test that
 * runs every printed hint as printed (printed_steps_test.ts):
 *
 * - "launcher": an install's bin/portreeve-mcp;
 * - "deno": a checkout with `deno` on PATH (`deno task …`); `npx` there fails with 127;
 * - "npx": a checkout run through `npx -y deno@V task …`, with no `deno` on PATH (one there
 *   fails with 127). The real npx may need the network, so a stand-in takes its place: it
 *   accepts exactly `-y deno@V` and runs the same Deno from a folder named like npx's cache
 *   (`…/_npx/…`), which is how the bridge tells this form apart.
 *
 * The checkout is a copy of this one under a path with a space and a quote, so every printed
 * `cd` must quote it. Each form's Deno is a hard link (else a copy) of the running one, so
 * Deno.execPath() names the form's own path.
 */
import { fileURLToPath } from "node:url";
import { HostClient } from "../support/host_client.ts";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { childEnv, confinedFlags } from "../../src/shared/permissions.ts";
import { installLayout } from "../../src/shared/install_layout.ts";
import { copyCheckout } from "../support/checkout.ts";
import { isObject } from "../../src/shared/json.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NPX_VERSION = `deno@${Deno.version.deno}`;
const decoder = new TextDecoder();

export type FormName = "launcher" | "deno" | "npx";

export interface Output {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Form {
  name: FormName;
  /** The reader's environment: PATH of this form, the simulator's socket, a private root. */
  env: Record<string, string>;
  /** The Deno this form runs, for starting its bridge by hand. */
  deno: string;
  /** Runs a bridge command (`serve`, `config`, `doctor`, …) the way this reader does. */
  command(words: string[]): Promise<Output>;
  /** Runs a checkout task the way this reader does; null for the launcher form. */
  task: ((name: string, args: string[], env?: Record<string, string>) => Promise<Output>) | null;
  /** The argv of a bridge serving `socket` under a grant for `grant` (a misconfiguration). */
  bridge(grant: string, socket: string): string[];
}

export interface Rig {
  /** The temporary folder everything is in; printed commands run here unless in a checkout. */
  work: string;
  checkout: string;
  forms: Form[];
  close(): Promise<void>;
}

async function run(argv: string[], env: Record<string, string>, cwd: string): Promise<Output> {
  const out = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** The running Deno at `path`: a hard link keeps Deno.execPath() at that name. */
async function denoAt(path: string): Promise<string> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.link(Deno.execPath(), path).catch(() => Deno.copyFile(Deno.execPath(), path));
  return path;
}

async function script(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(path, text);
  await Deno.chmod(path, 0o755);
}

/** A command this form must never need: it fails the way a missing one does. */
function absent(name: string): string {
  return `#!/bin/sh\necho "${name}: not installed in this reader's form" >&2\nexit 127\n`;
}

/** The environment every form shares: the caller's, less what would choose a socket. */
function readerEnv(extra: Record<string, string>): Record<string, string> {
  const env = childEnv(extra);
  delete env.XDG_STATE_HOME;
  return env;
}

/** Sets up the three forms against `socket` (a simulator the caller runs). */
export async function setUpForms(socket: string): Promise<Rig> {
  const work = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-hints-" }));
  const checkout = `${work}/check out's`;
  await copyCheckout(ROOT, checkout);

  const denoBin = `${work}/deno-bin`;
  const denoForm = await denoAt(`${denoBin}/deno`);
  await script(`${denoBin}/npx`, absent("npx"));

  const npxBin = `${work}/npx-bin`;
  const npxDeno = await denoAt(`${work}/npm-cache/_npx/0a1b2c/node_modules/deno/deno`);
  await Deno.mkdir(npxBin, { recursive: true });
  await script(
    `${npxBin}/npx`,
    `#!/bin/sh
if [ "$1" != "-y" ] || [ "$2" != "${NPX_VERSION}" ]; then
  echo "npx stand-in: expected -y ${NPX_VERSION}, got: $*" >&2
  exit 2
fi
shift 2
exec '${npxDeno}' "$@"
`,
  );
  await script(`${npxBin}/deno`, absent("deno"));

  const envFor = (bin: string, root: string) =>
    readerEnv({
      PATH: `${bin}:/usr/bin:/bin`,
      PORTREEVE_SOCKET: socket,
      PORTREEVE_MCP_INSTALL_ROOT: root,
    });

  const checkoutForm = (name: "deno" | "npx", bin: string, deno: string, words: string[]) => {
    const env = envFor(bin, `${work}/install-${name}`);
    const task = (task: string, args: string[], extra: Record<string, string> = {}) =>
      run([...words, "task", "-q", task, ...args], { ...env, ...extra }, checkout);
    const form: Form = {
      name,
      env,
      deno,
      task,
      command: ([command, ...rest]) =>
        ["serve", "config", "doctor"].includes(command)
          ? task(command, rest)
          : task("confined", ["run", "main.ts", command, ...rest]),
      bridge: (grant, serving) => [
        deno,
        "run",
        ...confinedFlags(grant),
        `${checkout}/main.ts`,
        "serve",
        "--socket",
        serving,
      ],
    };
    return form;
  };
  const deno = checkoutForm("deno", denoBin, denoForm, [denoForm]);
  const npx = checkoutForm("npx", npxBin, npxDeno, [`${npxBin}/npx`, "-y", NPX_VERSION]);

  // The launcher form: an install made from the checkout; its reader has npx (for the
  // checkout tasks a hint may name) but no deno.
  const root = `${work}/installed`;
  const installed = await deno.task!("install", [], { PORTREEVE_MCP_INSTALL_ROOT: root });
  if (installed.code !== 0) throw new Error(`install failed: ${installed.stderr}`);
  const layout = installLayout(root);
  const launcherEnv = envFor(npxBin, `${work}/install-launcher`);
  const launcher: Form = {
    name: "launcher",
    env: launcherEnv,
    deno: layout.deno,
    task: null,
    command: (words) => run([layout.launcher, ...words], launcherEnv, work),
    bridge: (grant, serving) => [
      layout.deno,
      "run",
      ...confinedFlags(grant, "bundle"),
      layout.bundle,
      "serve",
      "--socket",
      serving,
    ],
  };
  return {
    work,
    checkout,
    forms: [launcher, deno, npx],
    close: () => Deno.remove(work, { recursive: true }),
  };
}

/**
 * What a person reads from tool calls: each error's message and a diagnostics guidance (the
 * agent's own `nextStep` is not a person's), and what the bridge logged meanwhile.
 */
export async function toolTexts(
  form: Form,
  argv: string[],
  tools: string[],
): Promise<{ texts: string[]; log: string }> {
  const transport = new StdioClientTransport({
    command: argv[0],
    args: argv.slice(1),
    env: form.env,
    stderr: "pipe",
  });
  let log = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => log += decoder.decode(chunk));
  const client = new HostClient({ name: "hints-e2e", version: "0" });
  await client.connect(transport);
  try {
    const texts: string[] = [];
    for (const name of tools) {
      const result = await client.callTool({ name, arguments: {} });
      const envelope = envelopeIn(result);
      texts.push(envelope.error?.message ?? "", envelope.data?.guidance ?? "");
    }
    return { texts: texts.filter((text) => text !== ""), log: logText(log) };
  } finally {
    await client.close();
  }
}

/** The log as a person reads it: each JSON line's strings, unescaped. */
function logText(log: string): string {
  const strings = (value: unknown): string[] =>
    typeof value === "string"
      ? [value]
      : typeof value === "object" && value !== null
      ? Object.values(value).flatMap(strings)
      : [];
  return log.split("\n").flatMap((line) => {
    try {
      return strings(JSON.parse(line));
    } catch {
      return [line];
    }
  }).join("\n");
}

interface HumanParts {
  error?: { message?: string };
  data?: { guidance?: string };
}

/**
 * The result's envelope: a success's structured content, else the JSON its text carries (an
 * unflagged error's structured content is `{ok: false}` alone).
 */
function envelopeIn(result: { structuredContent?: unknown; content?: unknown }): HumanParts {
  const structured = result.structuredContent;
  if (isObject(structured) && structured.ok !== false) return structured as HumanParts;
  const blocks = Array.isArray(result.content) ? result.content : [];
  const text = blocks.map((block) => String(block?.text ?? "")).join("\n");
  const start = text.indexOf("{");
  return start === -1 ? {} : JSON.parse(text.slice(start)) as HumanParts;
}

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

/**
 * Runs a printed command as a person pasting it into `sh` would, and returns what it printed;
 * `where` names it in failures. It must exit 0, except the simulator, which must listen on its
 * socket, and stop and remove it on SIGTERM.
 */
export async function runPrinted(
  command: string,
  cwd: string,
  env: Record<string, string>,
  where: string,
): Promise<string> {
  const options = { cwd, env, clearEnv: true, stdin: "null", stderr: "piped" } as const;
  const socket = / task simulator /.test(command) ? command.match(/--socket (\S+)/)?.[1] : null;
  if (!socket) {
    const out = await new Deno.Command("/bin/sh", {
      ...options,
      args: ["-c", command],
      stdout: "piped",
    })
      .output();
    const said = decoder.decode(out.stdout) + decoder.decode(out.stderr);
    if (out.code !== 0) throw new Error(`${where}: \`${command}\` exited ${out.code}: ${said}`);
    return said;
  }
  // `exec` so that SIGTERM reaches `deno task` (or npx, which execs Deno), which passes it on.
  const exec = command.includes(" && ") ? command.replace(" && ", " && exec ") : `exec ${command}`;
  const child = new Deno.Command("/bin/sh", { ...options, args: ["-c", exec], stdout: "null" })
    .spawn();
  // It says when it listens; stderr closes once every process of the chain has exited.
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let said = "";
  while (!said.includes("listening on")) {
    const { value, done } = await reader.read();
    if (done) break;
    said += value;
  }
  const listening = said.includes("listening on") &&
    ((await Deno.lstat(socket).catch(() => null))?.isSocket ?? false);
  if (listening) child.kill("SIGTERM");
  for (let next = await reader.read(); !next.done; next = await reader.read()) said += next.value;
  const status = await child.status;
  if (!listening) throw new Error(`${where}: \`${command}\` exited ${status.code}: ${said}`);
  if (await exists(socket)) throw new Error(`${where}: \`${command}\` left its socket`);
  return said;
}
