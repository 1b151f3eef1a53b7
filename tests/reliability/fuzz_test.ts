/**
 * Bad input fuzz. Well over 1,000 generated frames into the real `serve` process
 * over real stdio: schema-invalid arguments for every tool (built from its tools/list
 * inputSchema: each required field missing, each field of a wrong type or out of range),
 * invalid JSON, wrong JSON-RPC shapes, huge and odd ids, deep nesting, invalid UTF-8, frames
 * just under, at and over 1 MiB, unknown methods and tools, random bytes, truncated and
 * mutated valid frames. An independent oracle (JSON-RPC 2.0 rules, not the bridge's code)
 * says what each frame must get: a response with its id, an error with id null, or nothing.
 * Every request is answered exactly once, the process never dies, stdout carries frames only,
 * and no schema-invalid call reaches the daemon. The PRNG seed is printed; rerun a failure
 * with RELIABILITY_SEED=<seed>. Then every string input of every tool (nested ones too), one
 * character and 200,000 characters over its bound, is `portreeve_invalid_input` naming that
 * field, with no daemon request.
 */
import { resolve } from "../../src/results/input_limits.ts";
import { validValue } from "../support/input_walk.ts";
import { concatBytes } from "../../src/shared/bytes.ts";
import assert from "node:assert/strict";
import { withSimulator } from "../e2e/harness.ts";
import {
  assertNoBridgeBug,
  envelopeOf,
  type Id,
  idKey,
  type Message,
  sleep,
  spawnPeer,
  type ToolResult,
} from "../support/raw_peer.ts";
import { Catalogue } from "../../src/catalogue/catalogue.ts";
import { namesPath, stringInputs } from "../support/input_walk.ts";
import { reportFigure } from "../support/reliability_figures.ts";
import type { Schema } from "../../src/results/compact/schema_nodes.ts";

const MAX_FRAME = 1024 * 1024;
const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a frame must get back. */
type Expect =
  | { kind: "id"; id: Id } // a response (result or error) carrying this id
  | { kind: "invalid"; id: Id } // a tool result portreeve_invalid_input, or JSON-RPC -32602
  | { kind: "null" } // an error with id null
  | { kind: "id-or-null"; id: Id } // invalid request whose id may or may not be recoverable
  | { kind: "none" }; // a notification or a response from us: no answer

interface Case {
  label: string;
  bytes: Uint8Array;
  expect: Expect;
}

function validId(id: unknown): id is Id {
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));
}

/** JSON-RPC 2.0 over newline-delimited stdio, judged from the bytes alone. */
function oracle(line: Uint8Array): Expect | "skip" {
  if (line.every((b) => b === 32 || b === 9 || b === 13)) return { kind: "none" };
  let text: string;
  try {
    text = strictUtf8.decode(line);
  } catch {
    return { kind: "null" };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "null" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { kind: "null" };
  const m = value as Record<string, unknown>;
  const hasId = "id" in m;
  if (hasId && !validId(m.id)) return { kind: "null" };
  const id = hasId ? m.id as Id : undefined;
  const invalid = (): Expect => (id === undefined ? { kind: "null" } : { kind: "id-or-null", id });
  if (m.jsonrpc !== "2.0") return invalid();
  if ("method" in m) {
    if (typeof m.method !== "string" || m.method === "") return invalid();
    if (
      "params" in m &&
      (typeof m.params !== "object" || m.params === null || Array.isArray(m.params))
    ) {
      return invalid();
    }
    if (id === undefined) {
      // A stray cancellation could legitimately silence another case's answer.
      return m.method === "notifications/cancelled" ? "skip" : { kind: "none" };
    }
    return { kind: "id", id };
  }
  if (hasId && ("result" in m || "error" in m)) return { kind: "none" };
  return invalid();
}

function typesOf(schema: Schema): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.anyOf)) {
    return (schema.anyOf as Schema[]).flatMap((s) => typesOf(s));
  }
  return [];
}

/** Values that break `raw` (wrong JSON type, out of range, bad format, not in the enum). */
function invalidValues(raw: Schema, root: Schema): { why: string; value: unknown }[] {
  const s = resolve(raw, root);
  const types = typesOf(s);
  const out: { why: string; value: unknown }[] = [];
  if (types.length === 0 && !Array.isArray(s.enum) && !("const" in s)) return out;
  const samples: [string, unknown][] = [
    ["string", "a-string"],
    ["number", 12.5],
    ["boolean", false],
    ["array", [1, 2]],
    ["object", { nested: true }],
    ["null", null],
  ];
  for (const [type, value] of samples) {
    const accepted = types.includes(type) || (type === "number" && types.includes("integer"));
    if (!accepted) out.push({ why: `wrong type ${type}`, value });
  }
  if (types.includes("integer")) out.push({ why: "not an integer", value: 1.5 });
  if (typeof s.minimum === "number") out.push({ why: "below minimum", value: s.minimum - 1 });
  if (typeof s.maximum === "number") out.push({ why: "above maximum", value: s.maximum + 1 });
  if (typeof s.exclusiveMinimum === "number") {
    out.push({ why: "not above exclusiveMinimum", value: s.exclusiveMinimum });
  }
  if (typeof s.minLength === "number" && s.minLength > 0) out.push({ why: "too short", value: "" });
  if (typeof s.maxLength === "number") {
    out.push({ why: "too long", value: "x".repeat(s.maxLength + 1) });
  }
  if (s.format === "uuid") out.push({ why: "not a uuid", value: "not-a-uuid" });
  if (s.format === "date-time") out.push({ why: "not a date-time", value: "yesterday" });
  if (typeof s.pattern === "string") out.push({ why: "pattern", value: "!!no match!!" });
  if (Array.isArray(s.enum)) out.push({ why: "not in enum", value: "__not_in_enum__" });
  if ("const" in s) out.push({ why: "not the const", value: "__not_the_const__" });
  return out;
}

Deno.test("fuzz: every bad frame gets a well-formed answer, stdout stays frames only, the bridge lives", async (t) => {
  const seed = Number(Deno.env.get("RELIABILITY_SEED") ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`fuzz seed ${seed} (reproduce with RELIABILITY_SEED=${seed})`);
  const rand = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const int = (n: number) => Math.floor(rand() * n);

  const env = await withSimulator();
  const peer = spawnPeer({ socketPath: env.socketPath });
  const used = new Set<string>();
  let serial = 0;
  const fresh = (): Id => (rand() < 0.5 ? `fz-${serial++}` : 500_000 + serial++);
  const expectations: Case[] = [];
  const add = (label: string, bytes: Uint8Array | string, expect?: Expect) => {
    const b = typeof bytes === "string" ? encoder.encode(bytes) : bytes;
    assert.ok(!b.includes(10), `${label}: a case is one line`);
    const judged = expect ?? oracle(b);
    if (judged === "skip") return false;
    if ("id" in judged) {
      const key = idKey(judged.id);
      if (used.has(key)) return false; // ambiguous: two cases with one id
      used.add(key);
    }
    expectations.push({ label, bytes: b, expect: judged });
    return true;
  };
  const req = (id: unknown, method: unknown, params?: unknown) =>
    JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });

  try {
    await peer.initialize();
    const list = await peer.request("tools/list");
    const tools = (list.result as { tools: { name: string; inputSchema: Schema }[] }).tools;
    assert.equal(tools.length, new Catalogue("full").size, "the whole catalogue is listed");

    let phaseA = 0;
    await t.step(
      "phase A: schema-invalid arguments for every tool, each answered with its id",
      async () => {
        // ---- Phase A: schema-invalid arguments for every tool -----------------------------------
        for (const tool of tools) {
          const root = tool.inputSchema;
          const props = (root.properties ?? {}) as Record<string, Schema>;
          const base = validValue(root, root) as Record<string, unknown>;
          const call = (label: string, args: unknown) => {
            const id = fresh();
            add(
              `${tool.name}: ${label}`,
              req(id, "tools/call", { name: tool.name, arguments: args }),
              {
                kind: "invalid",
                id,
              },
            );
          };
          for (const key of (root.required ?? []) as string[]) {
            const { [key]: _dropped, ...rest } = base;
            call(`missing ${key}`, rest);
          }
          for (const [key, schema] of Object.entries(props)) {
            for (const { why, value } of invalidValues(schema, root)) {
              call(`${key}: ${why}`, { ...base, [key]: value });
            }
            // One level down: each required field of an object-valued property.
            const inner = resolve(schema, root);
            if (inner.type === "object" && Array.isArray(inner.required)) {
              const valid = validValue(inner, root) as Record<string, unknown>;
              for (const sub of inner.required as string[]) {
                const { [sub]: _d, ...rest } = valid;
                call(`${key}.${sub} missing`, { ...base, [key]: rest });
              }
            }
          }
        }
        // Too deep to serialise for the daemon (a RangeError, once a bridge bug): invalid input.
        let deep: unknown = { version: 1, project: "deep", components: {} };
        for (let i = 0; i < 20_000; i++) deep = { x: deep };
        const deepId = fresh();
        add(
          "stack_definition_validate: a definition nested 20,000 deep",
          req(deepId, "tools/call", {
            name: "portreeve_stack_definition_validate",
            arguments: { definition: deep },
          }),
          { kind: "invalid", id: deepId },
        );
        phaseA = expectations.length;
        for (const c of expectations) await peer.send(concatLine(c.bytes));
        for (const c of expectations) await peer.response((c.expect as { id: Id }).id, 30_000);
        assert.equal(env.sim.requests.length, 0, "no schema-invalid call reached the daemon");
      },
    );

    await t.step(
      "phase A2: every string input of every tool, over its bound: invalid_input naming it",
      async () => {
        // Nested ones too (list items, map keys and values), one character over and far over.
        const sent: { id: Id; label: string; path: string; key: boolean }[] = [];
        for (const tool of tools) {
          for (const input of stringInputs(tool.inputSchema)) {
            for (const extra of [1, 200_000]) {
              const id = fresh();
              const label = `${tool.name} ${input.path || "(root)"} +${extra}`;
              const text = req(id, "tools/call", {
                name: tool.name,
                arguments: input.argsWith(extra),
              });
              // Registered like every case, so the accounting below counts its one answer.
              add(label, text, { kind: "invalid", id });
              await peer.send(text + "\n");
              sent.push({ id, label, path: input.path, key: input.key });
            }
          }
        }
        for (const { id, label, path, key } of sent) {
          const m = await peer.response(id, 30_000);
          assertInvalid(label, m);
          const message = envelopeOf(m.result as ToolResult).error?.message ?? "";
          assert.ok(namesPath(message, path, key), `${label}: ${message.slice(0, 200)}`);
          assert.ok(peer.responseBytes(id)! < 8_000, `${label}: the value is not echoed back`);
        }
        assert.ok(sent.length > 100, `${sent.length} over-long inputs`);
        assert.equal(env.sim.requests.length, 0, "no over-long input reached the daemon");
        await reportFigure(
          "over-long string inputs",
          `${sent.length} inputs over ${tools.length} tools, 0 daemon requests`,
        );
        phaseA = expectations.length;
      },
    );

    await t.step(
      "phase B: shapes, ids, sizes and garbage, written in irregular chunks",
      async () => {
        // ---- Phase B: shapes, ids, sizes, garbage ----------------------------------------------
        const shapes: [string, string][] = [
          ["jsonrpc 1.0", JSON.stringify({ jsonrpc: "1.0", id: fresh(), method: "ping" })],
          ["no jsonrpc", JSON.stringify({ id: fresh(), method: "ping" })],
          ["params array", req(fresh(), "ping", [1, 2])],
          ["params string", req(fresh(), "ping", "x")],
          ["params null", req(fresh(), "ping", null)],
          ["method number", req(fresh(), 42)],
          ["method empty", req(fresh(), "")],
          ["method null", req(fresh(), null)],
          ["id true", req(true, "ping")],
          ["id null", req(null, "ping")],
          ["id float", req(1.5, "ping")],
          ["id object", req({ a: 1 }, "ping")],
          ["id array", req([1], "ping")],
          ["id 2^53", `{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`],
          ["id -2^63", `{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}`],
          ["id 1e400", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`],
          ["id max safe", req(Number.MAX_SAFE_INTEGER, "ping")],
          ["id min safe", req(Number.MIN_SAFE_INTEGER, "ping")],
          ["id 0", req(0, "ping")],
          ["id empty string", req("", "ping")],
          ["id lone surrogate", `{"jsonrpc":"2.0","id":"\\ud800-${serial++}","method":"ping"}`],
          ["id unicode", req(`ключ-🔑-${serial++}`, "ping")],
          ["id 200 KB string", req("i".repeat(200_000) + serial++, "ping")],
          ["batch empty", "[]"],
          ["batch of one", `[${req(fresh(), "ping")}]`],
          ["batch of two", `[${req(fresh(), "ping")},${req(fresh(), "ping")}]`],
          ["scalar number", "1"],
          ["scalar string", '"ping"'],
          ["scalar true", "true"],
          ["scalar null", "null"],
          ["empty object", "{}"],
          ["only jsonrpc", '{"jsonrpc":"2.0"}'],
          ["id without method", JSON.stringify({ jsonrpc: "2.0", id: fresh() })],
          ["client response", JSON.stringify({ jsonrpc: "2.0", id: fresh(), result: {} })],
          [
            "client error",
            JSON.stringify({ jsonrpc: "2.0", id: fresh(), error: { code: 1, message: "x" } }),
          ],
          ["unknown notification", JSON.stringify({ jsonrpc: "2.0", method: "notifications/zzz" })],
          ["initialize again", req(fresh(), "initialize", { protocolVersion: "2025-11-25" })],
          ["tools/call no params", req(fresh(), "tools/call")],
          ["tools/call name number", req(fresh(), "tools/call", { name: 7 })],
          [
            "tools/call arguments array",
            req(fresh(), "tools/call", { name: "portreeve_health", arguments: [] }),
          ],
          [
            "tools/call arguments string",
            req(fresh(), "tools/call", { name: "portreeve_health", arguments: "x" }),
          ],
          [
            "tools/call arguments null",
            req(fresh(), "tools/call", { name: "portreeve_health", arguments: null }),
          ],
          ["tools/list params junk", req(fresh(), "tools/list", { cursor: 12 })],
          [
            "duplicate keys",
            `{"jsonrpc":"2.0","id":"dup-${serial++}","id":"dup-${serial++}","method":"ping"}`,
          ],
          ["trailing garbage", req(fresh(), "ping") + " trailing"],
          ["BOM", "\ufeff" + req(fresh(), "ping")],
          ["NUL inside", req(fresh(), "ping").replace("ping", "pi\u0000ng")],
          ["whitespace only", "   \t\r"],
          ["truncated", req(fresh(), "ping").slice(0, 20)],
          [
            "extra top-level member",
            JSON.stringify({ jsonrpc: "2.0", id: fresh(), method: "ping", x: 1 }),
          ],
          [
            "extra member on tools/call",
            JSON.stringify({
              jsonrpc: "2.0",
              id: fresh(),
              method: "tools/call",
              params: { name: "portreeve_health", arguments: {} },
              extra: { deep: true },
            }),
          ],
          ["_meta a number", req(fresh(), "ping", { _meta: 5 })],
          ["progressToken an object", req(fresh(), "tools/list", { _meta: { progressToken: {} } })],
        ];
        for (const [label, text] of shapes) add(label, text);
        for (const tool of tools) {
          add(
            `extra argument for ${tool.name}`,
            req(fresh(), "tools/call", {
              name: tool.name,
              arguments: { zzUnknownArgument: 1 },
            }),
          );
        }
        // Invalid UTF-8 in otherwise valid JSON, and deep nesting.
        for (
          const bad of [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]]
        ) {
          const head = encoder.encode(
            `{"jsonrpc":"2.0","id":"u8-${serial++}","method":"ping","params":{"x":"`,
          );
          const tail = encoder.encode(`"}}`);
          add(
            `invalid UTF-8 ${bad.map((b) => b.toString(16)).join(" ")}`,
            concatBytes([head, new Uint8Array(bad), tail]),
          );
        }
        for (const depth of [64, 1_000, 10_000, 100_000, 400_000]) {
          const nest = "[".repeat(depth) + "]".repeat(depth);
          add(
            `nesting ${depth} in params`,
            `{"jsonrpc":"2.0","id":"deep-${depth}","method":"ping","params":{"a":${nest}}}`,
          );
          add(
            `nesting ${depth} in tool arguments`,
            `{"jsonrpc":"2.0","id":"deep-call-${depth}","method":"tools/call","params":{"name":"portreeve_port_inspect","arguments":{"port":${nest}}}}`,
          );
        }
        // Frames just under, at and over the 1 MiB bound (counted without the newline).
        for (
          const [label, size] of [["1 MiB - 1", MAX_FRAME - 1], ["1 MiB", MAX_FRAME], [
            "1 MiB + 1",
            MAX_FRAME + 1,
          ], ["3 MiB", 3 * MAX_FRAME]] as const
        ) {
          const id = `size-${label}`;
          const shell =
            `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"portreeve_health","arguments":{"pad":""}}}`;
          const text = shell.replace('"pad":""', `"pad":"${"p".repeat(size - shell.length)}"`);
          assert.equal(encoder.encode(text).length, size);
          add(
            `frame of ${label}`,
            text,
            size > MAX_FRAME ? { kind: "id-or-null", id } : { kind: "id", id },
          );
        }
        const unknownTool = () =>
          `portreeve_${pick(["nope", "ports_lis", "HEALTH", "x".repeat(300), ""])}`;
        const methods = [
          "ping",
          "tools/list",
          "prompts/list",
          "resources/list",
          "no/such",
          "rpc.discover",
          "",
          "tools/call",
        ];
        // Random frames until the total passes 1,000 (and a few hundred more).
        const template = () => {
          const kind = int(6);
          if (kind === 0) return req(fresh(), pick(methods), pick([undefined, {}, { a: 1 }]));
          if (kind === 1) return req(fresh(), "tools/call", { name: unknownTool(), arguments: {} });
          if (kind === 2) return req(fresh(), `method/${int(1e6)}`);
          if (kind === 3) {
            const tool = pick(tools);
            return req(fresh(), "tools/call", { name: tool.name, arguments: { junk: int(10) } });
          }
          if (kind === 4) {
            return JSON.stringify({ jsonrpc: "2.0", method: `notifications/r${int(99)}` });
          }
          return req(fresh(), "ping");
        };
        let attempts = 0;
        while (expectations.length < phaseA + 900 && attempts++ < 20_000) {
          const mode = int(4);
          const base = encoder.encode(template());
          let bytes: Uint8Array;
          if (mode === 0) {
            bytes = Uint8Array.from({ length: 1 + int(200) }, () => int(256));
          } else if (mode === 1) {
            bytes = base.slice(0, int(base.length));
          } else if (mode === 2) {
            bytes = base.slice();
            for (let k = 0, n = 1 + int(4); k < n; k++) bytes[int(bytes.length)] = int(256);
          } else {
            bytes = base;
          }
          bytes = bytes.map((b) => (b === 10 ? 32 : b));
          add(`random mode ${mode}`, bytes);
        }

        const phaseB = expectations.slice(phaseA);
        // Write in irregular chunks so frames straddle reads.
        const stream = concatBytes(phaseB.map((c) => concatLine(c.bytes)));
        for (let offset = 0; offset < stream.length;) {
          const n = 1 + int(256 * 1024);
          await peer.send(stream.subarray(offset, offset + n));
          offset += n;
        }
      },
    );

    await t.step(
      "accounting: one well-formed answer per id, stdout frames only, the bridge still serves",
      async () => {
        // ---- Accounting ------------------------------------------------------------------------
        for (const c of expectations) {
          if (c.expect.kind === "id" || c.expect.kind === "invalid") {
            const m = await peer.response(c.expect.id, 60_000).catch((e) => {
              throw new Error(`${c.label}: ${e.message}; frame: ${preview(c.bytes)}`);
            });
            if (c.expect.kind === "invalid") assertInvalid(c.label, m);
          }
        }
        const sentinel = await peer.request("ping", undefined, 30_000);
        assert.ok("result" in sentinel, "still serving after the fuzz");
        await sleep(500);
        let nullExpected = 0;
        let eitherCount = 0;
        for (const c of expectations) {
          const e = c.expect;
          if (e.kind === "null") nullExpected++;
          else if (e.kind === "id-or-null") {
            const got = peer.byId.get(idKey(e.id))?.length ?? 0;
            assert.ok(got <= 1, `${c.label}: answered ${got} times`);
            if (got === 0) eitherCount++;
          } else if (e.kind === "id" || e.kind === "invalid") {
            assert.equal(peer.byId.get(idKey(e.id))?.length, 1, `${c.label}: exactly one answer`);
          }
        }
        const nulls = peer.byId.get("null")?.length ?? 0;
        assert.equal(nulls, nullExpected + eitherCount, "one id-null error per unreadable frame");
        for (const n of peer.byId.get("null") ?? []) assert.ok("error" in n, "id-null is an error");
        const known = new Set(
          expectations.flatMap((c) => ("id" in c.expect ? [idKey(c.expect.id)] : [])),
        );
        for (const key of peer.byId.keys()) {
          if (key === "null" || key.startsWith("number:1000")) continue; // our own requests
          assert.ok(known.has(key), `an answer for an id nobody sent: ${key.slice(0, 80)}`);
        }
        const health = envelopeOf(await peer.tool("portreeve_health"));
        assert.equal(health.ok, true, "the daemon path still works");
        assert.deepEqual(peer.violations, [], "stdout carried only well-formed frames");
        const kinds = expectations.reduce<Record<string, number>>((acc, c) => {
          acc[c.expect.kind] = (acc[c.expect.kind] ?? 0) + 1;
          return acc;
        }, {});
        const peakMiB = ((await peer.memory()).hwmKiB / 1024).toFixed(1);
        console.log(
          `${expectations.length} frames (${phaseA} schema-invalid tool calls over ${tools.length} tools); ` +
            `expected answers: ${JSON.stringify(kinds)}; peak RSS ${peakMiB} MiB`,
        );
        assert.ok(expectations.length >= 1_000, `${expectations.length} frames`);
        await reportFigure(
          "bad frames",
          `${
            expectations.length.toLocaleString("en-US")
          } frames, seed ${seed}; peak RSS ${peakMiB} MiB`,
        );
      },
    );

    await peer.closeStdin();
    assert.equal((await peer.exited()).code, 0, "clean exit after the fuzz");
    assertNoBridgeBug(peer, "the fuzz");
  } finally {
    await peer.closeStdin();
    await peer.exited();
    await env.cleanup();
  }
});

function assertInvalid(label: string, m: Message): void {
  if ("error" in m) {
    assert.equal(
      (m.error as { code: number }).code,
      -32602,
      `${label}: ${JSON.stringify(m.error)}`,
    );
    return;
  }
  const result = m.result as ToolResult;
  assert.equal(result.isError, true, `${label} was accepted: ${JSON.stringify(m).slice(0, 300)}`);
  assert.equal(envelopeOf(result).error?.code, "portreeve_invalid_input", label);
}

function preview(bytes: Uint8Array): string {
  return JSON.stringify(new TextDecoder().decode(bytes.subarray(0, 400)));
}

function concatLine(bytes: Uint8Array): Uint8Array {
  return concatBytes([bytes, new Uint8Array([10])]);
}
