// Replays the recorded real-daemon transcript against a fresh simulator and compares status
// codes and response shapes (keys and JSON types, recursively).
import assert from "node:assert/strict";
import { harness } from "../../support/simulator_harness.ts";
import type { JsonValue as Json } from "../../../src/shared/json.ts";

interface Pair {
  seq: number;
  method: string;
  path: string;
  requestHeaders: Record<string, string>;
  requestBody: unknown;
  status: number;
  responseBody: unknown;
}

const TRANSCRIPT = new URL("../../fixtures/daemon-http-transcript.jsonl", import.meta.url);

/** Fields the protocol declares nullable; only these may be null on one side only. */
const NULLABLE = new Set([
  "assignedPort",
  "preferredPort",
  "exactPort",
  "assignmentExpiresAt",
  "claim",
  "lease",
  "run",
  "docker",
  "process",
  "command",
  "reason",
  "launcherAction",
  "leaseId",
  "runId",
  "expiresAt",
  "failureReason",
  "confirmedAt",
  "endedAt",
  "invalidatedAt",
  "generation",
  "activation",
  "fingerprint",
  "definition",
  "revision",
  "nextCursor",
  "containerId",
  "releasedAt",
  "origin",
  "inventory",
  "dockerNetwork",
  "existing",
]);

const kind = (v: unknown): string => v === null ? "null" : Array.isArray(v) ? "array" : typeof v;

/** Collects shape differences between a recorded and a simulated value. */
function diff(rec: unknown, sim: unknown, path: string, key: string, out: string[]): void {
  const a = kind(rec);
  const b = kind(sim);
  if (a !== b) {
    if ((a === "null" || b === "null") && NULLABLE.has(key)) return;
    out.push(`${path}: recorded ${a}, simulated ${b}`);
    return;
  }
  if (a === "array") {
    const ra = rec as unknown[];
    const sa = sim as unknown[];
    if (ra.length !== sa.length) {
      out.push(`${path}: recorded ${ra.length} items, simulated ${sa.length}`);
      return;
    }
    // Element order may differ (e.g. history events inside one millisecond): match greedily.
    const unused = [...ra];
    sa.forEach((item, i) => {
      const index = unused.findIndex((candidate) => {
        const local: string[] = [];
        diff(candidate, item, `${path}[${i}]`, key, local);
        return local.length === 0;
      });
      if (index >= 0) unused.splice(index, 1);
      else diff(ra[i], item, `${path}[${i}]`, key, out);
    });
    return;
  }
  if (a === "object") {
    const ro = rec as Record<string, unknown>;
    const so = sim as Record<string, unknown>;
    for (const k of Object.keys(ro)) {
      if (!(k in so)) out.push(`${path}.${k}: missing in simulator`);
      else diff(ro[k], so[k], `${path}.${k}`, k, out);
    }
    for (const k of Object.keys(so)) if (!(k in ro)) out.push(`${path}.${k}: extra in simulator`);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

/** Learns recorded → simulated identifiers, tokens and cursors from parallel responses. */
function learn(rec: unknown, sim: unknown, key: string, map: Map<string, string>): void {
  if (typeof rec === "string" && typeof sim === "string") {
    const learnable = UUID.test(rec) || SECRET.test(rec) || key === "nextCursor";
    if (learnable && rec !== sim && !map.has(rec)) map.set(rec, sim);
    return;
  }
  if (Array.isArray(rec) && Array.isArray(sim)) {
    if (rec.length === sim.length) rec.forEach((r, i) => learn(r, sim[i], key, map));
    return;
  }
  if (rec && sim && typeof rec === "object" && typeof sim === "object") {
    const ro = rec as Record<string, unknown>;
    const so = sim as Record<string, unknown>;
    for (const k of Object.keys(ro)) if (k in so) learn(ro[k], so[k], k, map);
  }
}

function substitute(value: Json, map: Map<string, string>, paths: [string, string][]): Json {
  if (typeof value === "string") {
    let s = map.get(value) ?? value;
    for (const [from, to] of paths) s = s.split(from).join(to);
    return s;
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, map, paths));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, substitute(v, map, paths)]),
    );
  }
  return value;
}

function substitutePath(path: string, map: Map<string, string>, paths: [string, string][]): string {
  let out = path;
  for (const [from, to] of [...map, ...paths]) {
    out = out.split(from).join(to).split(encodeURIComponent(from)).join(encodeURIComponent(to));
  }
  return out;
}

Deno.test("simulator fidelity: recorded daemon transcript replays with matching shapes", async () => {
  const pairs: Pair[] = (await Deno.readTextFile(TRANSCRIPT)).split("\n").filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  const h = await harness();
  const control = h.sim.control;
  try {
    for (const name of ["demo-stack", "demo-app", "no-stack"]) await Deno.mkdir(`${h.dir}/${name}`);
    const paths: [string, string][] = [
      ["/home/dev/work/demo-stack", `${h.dir}/demo-stack`],
      ["/home/dev/work/demo-app", `${h.dir}/demo-app`],
    ];
    // Listener evidence the recording machine had: fake processes with the recorded PIDs.
    const hooks: Record<number, () => void> = {
      15: () => control.addListener(18080, 14390, { ppid: 14339, command: "node" }),
      32: () => control.removeListener(18080),
      94: () => control.addListener(18180, 14500, { ppid: 14339, command: "node" }),
      97: () => control.addListener(18181, 14511, { ppid: 14339, command: "node" }),
      130: () => {
        control.removeListener(18180);
        control.removeListener(18181);
      },
    };
    // Events sharing a millisecond page in an unspecified order, so history items are
    // checked against the recorded shape of the same eventType rather than by position.
    const eventShapes = new Map<string, unknown[]>();
    for (const pair of pairs) {
      if (!pair.path.startsWith("/v1/history") || pair.status !== 200) continue;
      const items = (pair.responseBody as { data: { items: { eventType: string }[] } }).data.items;
      for (const item of items) {
        eventShapes.set(item.eventType, [...(eventShapes.get(item.eventType) ?? []), item]);
      }
    }
    const map = new Map<string, string>();
    const failures: string[] = [];
    let compared = 0;
    for (const pair of pairs) {
      hooks[pair.seq]?.();
      // The recording asked about /etc, a directory with no stack document; an empty
      // directory of our own stands in, so the replay reads nothing outside the test's dir.
      const path = pair.path === "/v1/stack-document?stackRoot=%2Fetc"
        ? `/v1/stack-document?stackRoot=${encodeURIComponent(`${h.dir}/no-stack`)}`
        : substitutePath(pair.path, map, paths);
      const headers: Record<string, string> = { ...pair.requestHeaders };
      let body: string | undefined;
      if (pair.requestBody !== null && pair.requestBody !== undefined) {
        body = JSON.stringify(substitute(pair.requestBody as Json, map, paths));
      }
      const res = await h.raw(path, { method: pair.method, headers, body });
      const simulated = await res.json();
      compared++;
      const out: string[] = [];
      if (res.status !== pair.status) {
        out.push(`status: recorded ${pair.status}, simulated ${res.status}`);
      }
      if (pair.path.startsWith("/v1/history") && pair.status === 200) {
        const rec = pair.responseBody as { data: { items: unknown[]; page: unknown } };
        diff(
          { ...rec, data: { page: rec.data.page } },
          { ...simulated, data: { page: simulated.data.page } },
          "$",
          "",
          out,
        );
        if (rec.data.items.length !== simulated.data.items.length) {
          out.push("$.data.items: length differs");
        }
        simulated.data.items.forEach((item: { eventType: string }, i: number) => {
          const shapes = eventShapes.get(item.eventType) ?? [];
          const fits = (shape: unknown) => {
            const local: string[] = [];
            diff(shape, item, "", "", local);
            return local.length === 0;
          };
          if (shapes.length === 0) out.push(`$.data.items[${i}]: unrecorded ${item.eventType}`);
          else if (!shapes.some(fits)) diff(shapes[0], item, `$.data.items[${i}]`, "", out);
        });
      } else {
        diff(pair.responseBody, simulated, "$", "", out);
      }
      if (out.length) {
        failures.push(
          `#${pair.seq} ${pair.method} ${pair.path}\n    ${out.slice(0, 8).join("\n    ")}`,
        );
      }
      learn(pair.responseBody, simulated, "", map);
    }
    assert.equal(compared, pairs.length, "every recorded pair was replayed");
    assert.deepEqual(failures, [], `shape divergences:\n${failures.join("\n")}`);
  } finally {
    await h.close();
  }
});
