/**
 * Many agents on one daemon, for any socket and any bridges: N bridges of each command, started
 * together, each sending one lease_acquire and four reads at once (tests/support/crowd.ts), one
 * command after the other on the same daemon, and a table comparing them. For a real daemon and
 * PortReeve's own bridge, run outside this checkout's tests:
 *
 *   deno run -A scripts/bench/crowd.ts --socket ~/.local/state/portreeve/portreeve.sock \
 *     --bridges 50 --command "portreeve mcp serve" --command "portreeve-mcp serve"
 *
 * Every option can come from the environment instead: CROWD_SOCKET, CROWD_BRIDGES,
 * CROWD_WORKSPACE, and CROWD_COMMANDS (command lines separated by newlines). A command line is
 * split at spaces; `{bundle}` stands for this checkout's bundled bridge under its confinement
 * flags for the socket (`deno task bundle` first), the default when no command is given. Each
 * bridge finds the socket in PORTREEVE_SOCKET. Leases the run was granted are given back before
 * the bridges stop. Prints the table on stdout (`--json`: the reports), progress on stderr.
 */
import { parseArgs } from "node:util";
import { bridgeArgs } from "../../tests/e2e/harness.ts";
import { type CrowdReport, runCrowd } from "../../tests/support/crowd.ts";

const USAGE = `usage: deno run -A scripts/bench/crowd.ts --socket PATH [--bridges N]
       [--command "CMD ARGS" ...] [--workspace DIR] [--json]
(or CROWD_SOCKET, CROWD_BRIDGES, CROWD_COMMANDS one per line, CROWD_WORKSPACE)`;

const { values } = parseArgs({
  options: {
    socket: { type: "string", default: Deno.env.get("CROWD_SOCKET") },
    bridges: { type: "string", default: Deno.env.get("CROWD_BRIDGES") ?? "20" },
    command: { type: "string", multiple: true },
    workspace: { type: "string", default: Deno.env.get("CROWD_WORKSPACE") },
    json: { type: "boolean", default: false },
    help: { type: "boolean", short: "h" },
  },
});

if (values.help || values.socket === undefined) {
  console.error(USAGE);
  Deno.exit(values.help ? 0 : 2);
}
const socketPath = values.socket;
const bridges = Number(values.bridges);
if (!Number.isInteger(bridges) || bridges < 1) {
  console.error(`--bridges must be a positive integer (got "${values.bridges}")\n${USAGE}`);
  Deno.exit(2);
}
const lines = values.command ?? (Deno.env.get("CROWD_COMMANDS") ?? "{bundle}").split("\n");
const commands = lines.map((line) => line.trim()).filter(Boolean).map((line) =>
  line === "{bundle}"
    ? { name: "this bridge (bundle)", argv: [Deno.execPath(), ...bridgeArgs({ socketPath })] }
    : { name: line, argv: line.split(/\s+/) }
);
const workspace = values.workspace ??
  await Deno.realPath(await Deno.makeTempDir({ prefix: "crowd-" }));

const reports: [string, CrowdReport][] = [];
for (const [index, { name, argv }] of commands.entries()) {
  const report = await runCrowd({
    socketPath,
    bridges,
    command: argv,
    workspace,
    label: `${Date.now().toString(36)}-${index}`,
    log: (line) => console.error(`crowd (${name}): ${line}`),
  });
  reports.push([name, report]);
}

if (values.json) {
  console.log(JSON.stringify(Object.fromEntries(reports), null, 2));
} else {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;
  console.log(`${bridges} bridges of each command on ${socketPath}, all at once\n`);
  console.log(
    "| bridge | reads with data | acquires granted | refused | unknown | " +
      "read wait p50/p95 | acquire wait p50/p95 | progress notes | peak RSS p50/max |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const [name, r] of reports) {
    const refused = Object.entries(r.acquires.refused).map(([code, n]) => `${code} ${n}`);
    console.log(
      `| ${name} | ${r.reads.withData} of ${r.reads.sent} | ${r.acquires.granted} of ` +
        `${r.acquires.sent} | ${refused.join(", ") || "0"} | ${r.acquires.unknown} | ` +
        `${s(r.waitsMs.read.p50)} / ${s(r.waitsMs.read.p95)} | ${s(r.waitsMs.acquire.p50)} / ` +
        `${s(r.waitsMs.acquire.p95)} | ${r.progressNotes} | ${mib(r.peakRssKiB.p50)} / ` +
        `${mib(r.peakRssKiB.max)} |`,
    );
  }
}
