/**
 * The commands in the README's and docs' `sh` blocks, run as printed by `sh`, from where the
 * reader is told to stand (a copy of the checkout), for a person whose home is a fresh folder,
 * with PortReeve's daemon (the simulator) running at their default socket and `npx -y
 * deno@2.9.6` standing for this Deno. Installs come first and uninstalls last; every other line
 * runs in its document's order and must exit 0 (a simulator started with `&` must come up, and
 * go away on SIGTERM). Lines that are not ours to run are named with the reason, so a new
 * command cannot slip by unrun. The fast suite checks the same lines against the task table and
 * the parsers (tests/unit/repo/doc_commands_test.ts).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { documents, fences } from "../support/doc_fences.ts";
import { copyCheckout } from "../support/checkout.ts";
import { startSimulator } from "../../src/simulator/mod.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Lines this test does not run, and why. */
const NOT_RUN: [RegExp, string][] = [
  [/^(claude|codex|gemini) /, "a host's own command (deno task test:hosts runs the hosts)"],
  [
    /^portreeve-mcp (setup|doctor) --host (claude|codex|gemini|opencode|copilot|qwen|cline)\b/,
    "reads or writes a host's entry through its program (tests/hosts/setup_test.ts runs it)",
  ],
  [/^git clone /, "fetches the repository; these lines run in a copy of the checkout"],
  [/^cd portreeve-mcp$/, "the checkout these lines already run in"],
  [
    /^(cd dist|sha256sum |mkdir -p ~\/opt|tar -xzf |~\/opt\/)/,
    "needs a release archive (tests/reliability/release_test.ts builds one and smoke-tests it)",
  ],
];

/** The order a reader's session takes: install before use, uninstall at the end. */
function phase(line: string): number {
  if (/ task (install|package:npm)\b|^npm install -g /.test(line)) return 0;
  if (/ task uninstall\b/.test(line)) return 2;
  return 1;
}

interface Line {
  file: string;
  command: string;
}

async function shLines(): Promise<Line[]> {
  const lines: Line[] = [];
  for (const [file, text] of await documents()) {
    for (const fence of fences(text).filter((f) => f.language === "sh")) {
      for (const line of fence.lines) {
        const command = line.replace(/\s#\s.*$/, "").trim();
        if (command !== "" && !command.startsWith("#")) lines.push({ file, command });
      }
    }
  }
  return lines;
}

Deno.test("docs: every shell line of the README and docs runs as printed", async () => {
  const work = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-doc-run-" }));
  const home = `${work}/home`;
  const checkout = `${work}/portreeve-mcp`;
  await copyCheckout(ROOT, checkout);
  await Deno.mkdir(`${work}/bin`, { recursive: true });
  await Deno.writeTextFile(
    `${work}/bin/npx`,
    `#!/bin/sh\n[ "$1" = -y ] && [ "$2" = deno@${Deno.version.deno} ] || exit 127\nshift 2\n` +
      `exec '${Deno.execPath()}' "$@"\n`,
    { mode: 0o755 },
  );
  const socket = `${home}/.local/state/portreeve/portreeve.sock`;
  await Deno.mkdir(`${home}/.local/state/portreeve`, { recursive: true });
  const daemon = await startSimulator({ socketPath: socket, observeHost: false });
  const env: Record<string, string> = { ...Deno.env.toObject(), HOME: home };
  for (const name of ["PORTREEVE_SOCKET", "XDG_STATE_HOME", "PORTREEVE_MCP_INSTALL_ROOT"]) {
    delete env[name];
  }
  // npm's global installs go to a folder of this run's (its cache stays the machine's).
  env.npm_config_prefix = `${work}/npm-global`;
  env.npm_config_cache = (await npmCache()) ?? `${home}/.npm`;
  env.PATH = `${work}/npm-global/bin:${work}/bin:/usr/bin:/bin`;
  const ran: string[] = [];
  const failed: string[] = [];
  try {
    const lines = (await shLines()).sort((a, b) => phase(a.command) - phase(b.command));
    assert.ok(lines.length >= 10, `${lines.length} lines`);
    for (const { file, command } of lines) {
      const skip = NOT_RUN.find(([pattern]) => pattern.test(command));
      if (skip) continue;
      const why = await runAsPrinted(command, checkout, env);
      ran.push(command);
      if (why) failed.push(`${file}: \`${command}\`: ${why}`);
    }
    console.log(`ran ${ran.length} printed commands`);
    assert.deepEqual(failed, []);
    // The reader's path: installed, then an entry printed for this installation (doctor --host
    // needs the host's program; the e2e doctor_entry test runs it against a written entry).
    assert.ok(ran.some((c) => c.includes("task install")));
    assert.ok(ran.some((c) => c.startsWith("portreeve-mcp config --host")));
  } finally {
    await daemon.close();
    await Deno.remove(work, { recursive: true });
  }
});

/** npm's cache folder on this machine, so the run installs from it; undefined without npm. */
async function npmCache(): Promise<string | undefined> {
  const out = await new Deno.Command("npm", { args: ["config", "get", "cache"], stdout: "piped" })
    .output().catch(() => undefined);
  return out?.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
}

/** Runs one printed line in `sh`; why it failed, or undefined. */
async function runAsPrinted(
  command: string,
  cwd: string,
  env: Record<string, string>,
): Promise<string | undefined> {
  const background = command.endsWith("&");
  const line = background ? `exec ${command.slice(0, -1).trim()}` : command;
  const child = new Deno.Command("/bin/sh", {
    args: ["-c", line],
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out = new Response(child.stdout).text();
  if (!background) {
    const [status, said, err] = await Promise.all([
      child.status,
      out,
      new Response(child.stderr).text(),
    ]);
    return status.code === 0 ? undefined : `exit ${status.code}: ${said}${err}`;
  }
  // A daemon in the background: it must say it listens, then stop on SIGTERM.
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let said = "";
  while (!said.includes("listening on")) {
    const { value, done } = await reader.read();
    if (done) break;
    said += value;
  }
  const listening = said.includes("listening on");
  if (listening) child.kill("SIGTERM");
  for (let next = await reader.read(); !next.done; next = await reader.read()) said += next.value;
  const status = await child.status;
  await out;
  if (!listening) return `never listened: ${said}`;
  return status.code === 0 ? undefined : `exit ${status.code} on SIGTERM: ${said}`;
}
