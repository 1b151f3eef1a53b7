/**
 * The launcher: a POSIX shell script at `bin/portreeve-mcp` of an install root or a release
 * folder. Each time it starts it finds the daemon socket by the rules of
 * `src/shared/socket_location.ts` (`--socket PATH` or `--socket=PATH`, else a non-empty
 * `PORTREEVE_SOCKET`, else `portreeve.sock` in a non-empty `PORTREEVE_HOME`, else the platform
 * default), refuses the same paths with the same one-line messages (exit 2), including any
 * whose grant could reach more than a socket (`src/shared/socket_site.ts`, mirrored in
 * `launcher_site.ts`), and runs the bundle beside it with its private Deno under
 * `confinedFlags(socket, "bundle")`. It finds that Deno and bundle from its own location, so
 * the folder works wherever it is moved, through symbolic links too; a folder whose path holds
 * a newline is refused, as the shell's command substitution would cut it.
 *
 * The permission flags are not written here: they are `confinedFlags` for a placeholder
 * socket, with the placeholder replaced by the shell variable. A test runs the launcher
 * against a stand-in Deno and compares what it received with `confinedFlags`.
 */
import { confinedFlags, RUN_ENV } from "../../shared/permissions.ts";
import { installLayout, LAUNCHER_NAME, NPM_PACKAGE } from "../../shared/install_layout.ts";
import { SHOWN_PATH_BYTES, socketPathLimit } from "../../shared/socket_location.ts";
import { shellQuote } from "../../shared/shell.ts";
import { SOCKET_SITE_CHECK } from "./launcher_site.ts";
import { SOFTWARE_VERSION } from "../../shared/options.ts";
import { HOST_COMMANDS, planFlags } from "../host/grant.ts";

/** Stands for the socket (and the root) while the flags are computed; never in output. */
const SOCKET_PLACEHOLDER = "/@portreeve-mcp-socket@";
const ROOT_PLACEHOLDER = "/@portreeve-mcp-root@";

/** One shell word: `text` with each placeholder replaced by the quoted shell variable. */
function wordWith(text: string, placeholder: string, variable: string): string {
  return text.split(placeholder).map((part) => part === "" ? "" : shellQuote(part)).join(
    `"$${variable}"`,
  );
}

/**
 * Where the launcher's Deno comes from: "private", the copy under `lib/` that install and the
 * release archive lay down; "npm", the `deno` package npm installed as a dependency of the
 * npm package, found at each start as Node finds a dependency (see `npmDenoLookup`).
 */
export type LauncherRuntime = "private" | "npm";

/** The shell word naming the Deno executable, set before the command runs. */
function denoWord(runtime: LauncherRuntime): string {
  return runtime === "npm"
    ? '"$deno"'
    : wordWith(installLayout(ROOT_PLACEHOLDER).deno, ROOT_PLACEHOLDER, "root");
}

/** The Deno command line, with `"$socket"`, `"$root"` and `"$@"` left to the shell. */
function commandWords(runtime: LauncherRuntime): string {
  const flags = confinedFlags(SOCKET_PLACEHOLDER, "bundle");
  if (!flags.some((flag) => flag.includes(SOCKET_PLACEHOLDER))) {
    throw new Error("confinedFlags no longer names the socket; the launcher cannot grant it");
  }
  const layout = installLayout(ROOT_PLACEHOLDER);
  return [
    denoWord(runtime),
    "run",
    ...flags.map((flag) => wordWith(flag, SOCKET_PLACEHOLDER, "socket")),
    wordWith(layout.bundle, ROOT_PLACEHOLDER, "root"),
    '"$@"',
  ].join(" ");
}

/**
 * For a launcher that finds its platform at each start (the npm package's: one launcher for
 * Linux and macOS, and npm's Deno for this machine), `uname -sm` run once into `$system`
 * ("Linux x86_64", "Darwin arm64"); nothing for a launcher built for one `os`.
 */
function systemAssignment(os: string, runtime: LauncherRuntime): string {
  return os === "any" || runtime === "npm" ? "system=$(uname -sm)\n" : "";
}

/**
 * The default socket and the socket path limit, as the shell computes them (see
 * `discoverSocket`): for one `os`, or, for "any" (the npm package, one launcher for Linux and
 * macOS), chosen by `$system` at each start.
 */
function socketDefaults(os: string): string {
  if (os !== "any") return defaultSocket(os);
  return `
  case $system in
  Darwin*)${indented(defaultSocket("darwin"))} ;;
  *)${indented(defaultSocket("linux"))} ;;
  esac`;
}

/** The longest socket path the platform takes, plus one, as a shell assignment. */
function limitAssignment(os: string): string {
  if (os !== "any") return `limit=${socketPathLimit(os)}`;
  return `case $system in Darwin*) limit=${socketPathLimit("darwin")} ;; *) limit=${
    socketPathLimit("linux")
  } ;; esac`;
}

function indented(block: string): string {
  return block.replaceAll("\n  ", "\n    ");
}

/** Where the default socket lies for `os`, as the shell computes it (see `discoverSocket`). */
function defaultSocket(os: string): string {
  if (os === "darwin") {
    return `
  [ -n "\${HOME:-}" ] || fail "$no_home"
  absolute "$HOME" HOME folder
  socket="$normal/Library/Application Support/Portreeve/portreeve.sock" origin="macOS default"`;
  }
  return `
  if [ -n "\${XDG_STATE_HOME:-}" ]; then
    absolute "$XDG_STATE_HOME" XDG_STATE_HOME folder
    socket="$normal/portreeve/portreeve.sock" origin=XDG_STATE_HOME
  else
    [ -n "\${HOME:-}" ] || fail "$no_home"
    absolute "$HOME" HOME folder
    socket="$normal/.local/state/portreeve/portreeve.sock" origin=HOME
  fi`;
}

/** The default socket for this user, as `exampleSocket` spells it, for refusals to show. */
function exampleLine(os: string): string {
  const fallback = os === "darwin"
    ? '"${HOME:-}/Library/Application Support/Portreeve/portreeve.sock"'
    : '"${XDG_STATE_HOME:-${HOME:-}/.local/state}/portreeve/portreeve.sock"';
  return `case \${PORTREEVE_HOME:-} in /*) example="\${PORTREEVE_HOME%/}/portreeve.sock" ;; *) example=${fallback} ;; esac`;
}

/**
 * The launcher's text for a Deno built for `os` (`Deno.build.os` of its runtime), or for
 * "any" OS the shell finds itself on; its Deno is the private copy or npm's (`runtime`).
 */
export function launcherScript(os: string, runtime: LauncherRuntime = "private"): string {
  const env = Object.entries(RUN_ENV);
  const platform = os === "any" ? "Linux and macOS" : os;
  return `#!/bin/sh
# ${LAUNCHER_NAME} ${SOFTWARE_VERSION} launcher for ${platform}. Generated from src/shared/permissions.ts by
# src/cli/install/launcher.ts; see docs/install.md. Runs the bundled bridge with ${
    runtime === "npm" ? "npm's Deno" : "its own Deno"
  },
# granted at each start only the daemon socket it finds: --socket PATH, else PORTREEVE_SOCKET,
# else portreeve.sock in PORTREEVE_HOME, else the platform default.
set -f
unset CDPATH
fail() { printf '${LAUNCHER_NAME}: %s\\n' "$1" >&2; exit 2; }
no_home='Cannot find the PortReeve socket: HOME is not set. Pass --socket PATH or set PORTREEVE_SOCKET.'
${exampleLine(os)}
nl='
'
${systemAssignment(os, runtime)}
# The install root: the folder above this script's bin/, symbolic links followed. Command
# substitution drops trailing newlines, so each output ends in "." first, taken off after.
self=$0
case $self in */*) ;; *) self=./$self ;; esac
while [ -h "$self" ]; do
  link=$(readlink -- "$self" && echo .) || exit 1
  link=\${link%??}
  case $link in /*) self=$link ;; *) self=\${self%/*}/$link ;; esac
done
root=$(cd -P -- "\${self%/*}/.." && pwd -P && echo .) || exit 1
root=\${root%??}
case $root in
  *"$nl"*)
    shown=$(printf '%s\\n' "$root" | awk 'NR > 1 { printf "\\\\n" } { printf "%s", $0 }')
    fail "this launcher's folder $shown has a newline in its path, which a shell can cut to name another folder's Deno and bundle; move the folder to a path without one." ;;
esac

# Collapses //, /./ and /../ without touching the filesystem, into $normal.
normalise() {
  normal=
  IFS=/
  for part in $1; do
    case $part in
      '' | .) ;;
      ..) normal=\${normal%/*} ;;
      *) normal=$normal/$part ;;
    esac
  done
  unset IFS
  [ -n "$normal" ] || normal=/
}

# An absolute path Deno can grant exactly, normalised into $normal; else exit 2. A socket
# path may not name a directory; a folder (the third argument) may, and / becomes empty.
absolute() {
  case $1 in
    '') fail "$2 is empty; give an absolute socket path." ;;
    /*) ;;
    *) fail "$2 must be an absolute path (got \\"$1\\"); for example $example." ;;
  esac
  case $1 in
    *,*) fail "$2 $1 contains a comma, which Deno's permission lists read as a separator; use a socket path without commas." ;;
  esac
  normalise "$1"
  if [ "\${3:-}" = folder ]; then
    [ "$normal" != / ] || normal=
  else
    case $1 in */) normal=/ ;; esac
    [ "$normal" != / ] || directory "$2" "$1"
  fi
}

directory() {
  fail "$1 $2 names a directory: the permission grant would cover the whole tree under it; give the socket file's path, e.g. $example."
}

# The last --socket among the arguments, as the bridge's option parser reads them.
socket='' origin='' wanted=''
for arg do
  if [ -n "$wanted" ]; then socket=$arg origin=--socket wanted=; continue; fi
  case $arg in
    --socket) wanted=1 ;;
    --socket=*) socket=\${arg#--socket=} origin=--socket ;;
    --) break ;;
  esac
done

if [ -n "$origin" ]; then
  absolute "$socket" --socket
  socket=$normal
elif [ -n "\${PORTREEVE_SOCKET:-}" ]; then
  absolute "$PORTREEVE_SOCKET" PORTREEVE_SOCKET
  socket=$normal origin=PORTREEVE_SOCKET
elif [ -n "\${PORTREEVE_HOME:-}" ]; then
  absolute "$PORTREEVE_HOME" PORTREEVE_HOME folder
  socket=$normal/portreeve.sock origin=PORTREEVE_HOME
else${socketDefaults(os)}
fi
${limitAssignment(os)}
# Its length in bytes: \${#} counts characters in a multibyte locale, bytes in C (set only in
# this subshell).
bytes=$(LC_ALL=C; printf %s "\${#socket}")
shown=
[ "$bytes" -gt ${SHOWN_PATH_BYTES} ] || shown=" $socket"
[ "$bytes" -lt "$limit" ] ||
  fail "$origin$shown is $bytes bytes, too long for a Unix socket: it must be shorter than $limit bytes here. Use a shorter path."
${SOCKET_SITE_CHECK}
${runtime === "npm" ? npmDenoLookup() : privateDenoCheck()}
${env.map(([key, value]) => `${key}=${shellQuote(value)}`).join("\n")}
export ${env.map(([key]) => key).join(" ")}
${hostGrant(runtime)}
exec ${commandWords(runtime)}
`;
}

/**
 * `doctor --host NAME` and `setup --host NAME` (NAME not generic) run under the grant the
 * bridge plans for them in steps (src/cli/host/grant.ts): `grant` with `planFlags`, again with
 * what it printed while its first line says `plan`, then the command with the flags after
 * `run`, one a line (the shell splits them at newlines only; globbing is off).
 */
function hostGrant(runtime: LauncherRuntime): string {
  const deno = denoWord(runtime);
  const bundle = wordWith(installLayout(ROOT_PLACEHOLDER).bundle, ROOT_PLACEHOLDER, "root");
  const commands = HOST_COMMANDS.map((command) => `${command}:*`).join(" | ");
  const exempt = HOST_COMMANDS.flatMap((c) => [`${c}:`, `${c}:generic`]).join(" | ");
  return `host='' wanted=''
for arg do
  if [ -n "$wanted" ]; then host=$arg wanted=; continue; fi
  case $arg in --host) wanted=1 ;; --host=*) host=\${arg#--host=} ;; --) break ;; esac
done
case \${1:-}:$host in
  ${exempt}) ;;
  ${commands})
    flags=${shellQuote(planFlags("bundle").join("\n"))}
    step=0
    while :; do
      plan=$(IFS=$nl; exec ${deno} run $flags ${bundle} grant "$@") || exit
      flags=\${plan#*"$nl"}
      [ "\${plan%%"$nl"*}" != run ] || break
      step=$((step + 1))
      [ "$step" -lt 3 ] || fail "the permission grant for $1 --host $host did not settle"
    done
    IFS=$nl
    exec ${deno} run $flags ${bundle} "$@" ;;
esac`;
}

/** The private Deno must be there; a folder missing it was unpacked or copied only in part. */
function privateDenoCheck(): string {
  return `
[ -x ${denoWord("private")} ] || {
  printf '${LAUNCHER_NAME}: %s\\n' "$root/lib/${LAUNCHER_NAME} is missing or incomplete; reinstall ${LAUNCHER_NAME} or unpack its release folder again." >&2
  exit 1
}`;
}

/**
 * npm's Deno: the \`deno\` package's executable, which its install script links or copies into the
 * package (node_modules/deno/deno), or, when install scripts did not run, the per-platform
 * package's (node_modules/@deno/<target>/deno). Looked for as Node resolves a dependency:
 * in node_modules of the package's root, then of each folder above it.
 */
function npmDenoLookup(): string {
  return `
case $system in
  "Linux x86_64") target=linux-x64-glibc ;;
  "Linux aarch64" | "Linux arm64") target=linux-arm64-glibc ;;
  "Darwin x86_64") target=darwin-x64 ;;
  "Darwin arm64") target=darwin-arm64 ;;
  *) target=unsupported ;;
esac
deno='' dir=$root
while [ -z "$deno" ]; do
  case $dir in
    */node_modules) ;;
    *)
      for candidate in "$dir/node_modules/deno/deno" "$dir/node_modules/@deno/$target/deno"; do
        if [ -f "$candidate" ] && [ -x "$candidate" ]; then deno=$candidate; break; fi
      done ;;
  esac
  [ -n "$dir" ] || break
  dir=\${dir%/*}
done
[ -n "$deno" ] || {
  printf '${LAUNCHER_NAME}: %s\\n' "cannot find the Deno runtime npm installs with ${NPM_PACKAGE} (the deno package, in node_modules from $root upward); install the package again with npm." >&2
  exit 1
}`;
}
