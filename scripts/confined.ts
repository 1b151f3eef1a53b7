/**
 * Runs (or compiles) the bridge under its confinement flags, computed for the socket this
 * user's bridge would use; `doctor --host` and `setup --host` under the grant the bridge plans
 * for them (src/cli/host/grant.ts). The `serve`, `config`, `doctor`, `setup`, `serve:bundle`
 * and `compile` tasks run it (scripts/tasks.ts), so that none of them spells a permission set
 * out by hand.
 *
 *   deno task serve [--socket PATH] [...]         run main.ts serve confined
 *   scripts/confined.ts run ENTRY ARGS...
 *   scripts/confined.ts compile ENTRY OUTPUT
 */
import { denoChild } from "./task.ts";
import { confinedFlags } from "../src/shared/permissions.ts";
import { needsHostGrant, planFlags } from "../src/cli/host/grant.ts";
import { locateSocket, SocketPathError } from "../src/shared/socket_location.ts";
import { taskCommand, taskUsage } from "../src/shared/hints.ts";

const USAGE = `usage: ${taskUsage("confined")} run ENTRY [ARGS...]
       ${taskUsage("confined")} compile ENTRY OUTPUT [--socket PATH]`;

const [mode, entry, ...rest] = Deno.args;
if (mode === "--help" || mode === "-h") {
  console.log(`${USAGE}

run      runs ENTRY (main.ts or a bundle) with ARGS under the bridge's permission flags for
         the socket it would use (--socket among ARGS, else PORTREEVE_SOCKET, else the
         default); a source entry's npm packages are cached first, as deno.lock pins them
compile  compiles ENTRY into OUTPUT with those flags fixed in the binary

Exit codes: that of the bridge (or deno compile); 2 usage error or a refused socket path.`);
  Deno.exit(0);
}
if ((mode !== "run" && mode !== "compile") || !entry) {
  console.error(`${USAGE}\nsee \`${taskCommand("confined", ["--help"]).command}\``);
  Deno.exit(2);
}

// compile takes OUTPUT and --socket PATH, nothing else: a typo must not start a compile that
// downloads denort.
const extra = mode === "compile"
  ? rest.slice(1).filter((arg, i, all) => arg !== "--socket" && all[i - 1] !== "--socket")
  : [];
if (extra.some((arg) => !arg.startsWith("--socket="))) {
  console.error(
    `${USAGE}\ncompile takes no ${extra.join(" ")}; see \`${
      taskCommand("confined", ["--help"]).command
    }\``,
  );
  Deno.exit(2);
}

/** The last `--socket` value, as the bridge's option parser reads repeated options. */
function socketFlag(args: string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--") break;
    if (args[i] === "--socket" && i + 1 < args.length) found = args[++i];
    else if (args[i].startsWith("--socket=")) found = args[i].slice("--socket=".length);
  }
  return found;
}

let socket: string;
try {
  socket = locateSocket(socketFlag(rest)).path;
} catch (error) {
  if (!(error instanceof SocketPathError)) throw error;
  console.error(`portreeve-mcp: ${error.message}`);
  Deno.exit(2);
}

const bundle = entry.endsWith(".js");
if (mode === "run" && !bundle) {
  // The bridge runs with --cached-only, so the task fetches what deno.lock pins first.
  const cached = await new Deno.Command(Deno.execPath(), {
    args: ["install", "--quiet", "--frozen", "--entrypoint", entry],
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!cached.success) Deno.exit(cached.code || 1);
}

const form = bundle ? "bundle" : "source";
const args = mode === "run" ? ["run", ...await grantFor(rest, form, entry), entry, ...rest] : [
  "compile",
  ...confinedFlags(socket, "compile"),
  "--output",
  rest[0] ?? "dist/portreeve-mcp",
  entry,
];

/**
 * The flags for `rest`: the bridge's confinement, or, for `doctor --host`/`setup --host`, the
 * grant the bridge plans for itself in steps (src/cli/host/grant.ts), as the launcher asks it.
 */
async function grantFor(rest: string[], form: "bundle" | "source", entry: string) {
  if (!needsHostGrant(rest)) return confinedFlags(socket, form);
  let flags = planFlags(form);
  for (let step = 0; step < 3; step++) {
    const planned = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...flags, entry, "grant", ...rest],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (!planned.success) Deno.exit(planned.code || 1);
    const [next, ...lines] = new TextDecoder().decode(planned.stdout).trimEnd().split("\n");
    flags = lines;
    if (next === "run") return flags;
  }
  console.error("portreeve-mcp: the grant plan did not settle in three steps");
  Deno.exit(1);
}

Deno.exit(await denoChild(args));
