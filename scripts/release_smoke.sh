#!/bin/sh
# Smoke test of a release archive as a user meets it: checks its SHA-256, unpacks it under a
# fresh HOME, moves the folder, and runs its bin/portreeve-mcp with nothing else on PATH, an
# empty DENO_DIR and (where the system allows a private network namespace) no network, against
# the simulator on a socket path no build step used: --version, initialize + tools/list + a
# tool call over stdio, `config --host claude` (must print this folder's launcher) and `doctor`.
#
#   scripts/release_smoke.sh dist/portreeve-mcp-linux-x64.tar.gz
#
# DENO names the Deno that runs the simulator from this checkout (default: deno). Needs node
# for reading the JSON answers. Used by .github/workflows/release.yml and
# tests/reliability/release_test.ts. Exit 0 when every check passed.
set -eu

[ $# -eq 1 ] || { echo "usage: $0 ARCHIVE.tar.gz" >&2; exit 2; }
archive=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
name=$(basename "$archive" .tar.gz)
checkout=$(cd "$(dirname "$0")/.." && pwd)
deno=${DENO:-deno}
work=$(mktemp -d "${TMPDIR:-/tmp}/prmcp-smoke.XXXXXX")
simulator=
cleanup() {
  if [ -n "$simulator" ]; then kill "$simulator" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
say() { printf 'smoke: %s\n' "$*"; }
fail() {
  printf 'smoke: FAILED: %s\n' "$*" >&2
  exit 1
}

# The archive is what its checksum says.
(
  cd "$(dirname "$archive")"
  if command -v sha256sum >/dev/null; then sha256sum -c "$name.tar.gz.sha256"
  else shasum -a 256 -c "$name.tar.gz.sha256"; fi
) >/dev/null || fail "$name.tar.gz does not match $name.tar.gz.sha256"
say "checksum ok"

# One folder, unpacked under a fresh HOME, then moved.
home=$work/home
mkdir -p "$home/downloads" "$work/deno-dir"
tar -xzf "$archive" -C "$home/downloads"
[ "$(ls -A "$home/downloads")" = "$name" ] || fail "the archive must unpack to one folder $name/"
mv "$home/downloads/$name" "$home/moved"
bin=$home/moved/bin/portreeve-mcp
real_bin=$(cd -P "$home/moved/bin" && pwd -P)/portreeve-mcp
say "unpacked and moved to $home/moved"

# A private network namespace where this system allows one.
offline=
if unshare -n true 2>/dev/null; then offline="unshare -n"
elif unshare -rn true 2>/dev/null; then offline="unshare -rn"
fi
if [ -n "$offline" ]; then say "no network: each run is in a private network namespace ($offline)"
else say "network left up: this system allows no private network namespace (unshare -n, -rn)"
fi

# The simulator on a socket path chosen now.
sock=$work/run-$$/daemon.sock
mkdir -p -m 700 "${sock%/*}" # private, as PortReeve makes its folder (the launcher checks)
"$deno" run -A --quiet "$checkout/scripts/simulator.ts" --socket "$sock" >"$work/simulator.log" 2>&1 &
simulator=$!
tries=0
until [ -S "$sock" ]; do
  tries=$((tries + 1))
  [ "$tries" -le 150 ] || fail "the simulator did not start: $(cat "$work/simulator.log")"
  sleep 0.1
done

# Runs the unpacked launcher as a user with nothing installed would.
run() {
  # shellcheck disable=SC2086 # $offline is a command prefix of zero or two words
  env -i HOME="$home" PATH=/usr/bin:/bin DENO_DIR="$work/deno-dir" $offline "$bin" "$@"
}

version=$(run --version) || fail "--version"
case $version in "portreeve-mcp "*) ;; *) fail "--version printed: $version" ;; esac
say "$version"

printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"release-smoke","version":"0"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"portreeve_health","arguments":{}}}' |
  run serve --socket "$sock" >"$work/frames.jsonl" 2>"$work/serve.log" ||
  fail "serve exited non-zero: $(cat "$work/serve.log")"
# shellcheck disable=SC2016 # the program is JavaScript, for node to read
node -e '
  const text = require("fs").readFileSync(process.argv[1], "utf8").trim();
  const frames = text.split("\n").map((line) => JSON.parse(line));
  const answer = (id) => frames.find((frame) => frame.id === id)?.result;
  const problems = [];
  if (answer(1)?.serverInfo?.name !== "portreeve") problems.push("initialize");
  if (!(answer(2)?.tools?.length > 0)) problems.push("tools/list");
  if (answer(3)?.structuredContent?.ok !== true) problems.push("tools/call portreeve_health");
  if (problems.length > 0) {
    console.error(`no good answer to ${problems.join(", ")}:\n${text}`);
    process.exit(1);
  }
' "$work/frames.jsonl" || fail "MCP over stdio"
say "initialize, tools/list and portreeve_health answered"

run config --host claude --socket "$sock" >"$work/config.txt" 2>"$work/config.err" ||
  fail "config: $(cat "$work/config.err")"
grep -qF "\"command\": \"$real_bin\"" "$work/config.txt" ||
  fail "config does not name this folder's launcher $real_bin: $(cat "$work/config.txt")"
[ ! -s "$work/config.err" ] || fail "config warned: $(cat "$work/config.err")"
say "config --host claude names $real_bin"

run doctor --socket "$sock" >"$work/doctor.txt" 2>&1 || fail "doctor: $(cat "$work/doctor.txt")"
say "doctor: $(tail -1 "$work/doctor.txt")"
say "all checks passed"
