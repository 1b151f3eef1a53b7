/**
 * Declared replies: every route a tool or custody declares refuses a wrong shape as
 * `portreeve_invalid_response` naming the route, unknown keys pass through, and a call without
 * a reply schema is the bridge's own bug.
 * A bug in a tool is answered `portreeve_internal` and reported with its stack.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { checkReply, HEALTH_ROUTE, type ReplySchema } from "../../../src/daemon/replies.ts";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { RENEWAL_ROUTES } from "../../../src/catalogue/renewers.ts";
import type { Route } from "../../../src/catalogue/routes.ts";
import { BridgeError } from "../../../src/shared/errors.ts";
import { Catalogue, type ListedTool } from "../../../src/catalogue/catalogue.ts";
import { defineTool } from "../../../src/catalogue/define.ts";
import type { ToolContext } from "../../../src/catalogue/context.ts";
import { envelopeOf } from "../../../src/results/result.ts";

/** Every route the bridge calls, declared by the tools and custody's renewers. */
const DECLARED: Route[] = [
  ...ALL_TOOLS.flatMap((tool) => tool.routes ?? []),
  ...Object.values(RENEWAL_ROUTES),
];
const REPLY_ROUTES = [
  ...new Map(DECLARED.map((r) => [r.route, r])).values(),
];
const declared = (route: string): ReplySchema => {
  const found = REPLY_ROUTES.find((r) => r.route === route);
  if (!found) throw new Error(`${route} is not declared`);
  return found;
};

/** A concrete path for a route pattern. */
function pathOf(route: string): string {
  return route.slice(route.indexOf(" ") + 1).replace(/\{[^}]+\}/g, "0f0f0f0f");
}

Deno.test("every reply route refuses null data, naming the route", () => {
  assert.ok(REPLY_ROUTES.length >= 50, `${REPLY_ROUTES.length} routes declared`);
  const replies: ReplySchema[] = [...REPLY_ROUTES, HEALTH_ROUTE];
  for (const reply of replies) {
    const { route } = reply;
    const method = route.slice(0, route.indexOf(" "));
    assert.throws(() => checkReply(reply, method, `${pathOf(route)}?limit=1`, null), (error) => {
      assert.ok(error instanceof BridgeError, route);
      assert.equal(error.code, "portreeve_invalid_response", route);
      assert.equal(error.details.route, route);
      assert.ok(error.message.includes(route), error.message);
      return true;
    });
  }
});

Deno.test("replies keep unknown keys and name the first wrong field", () => {
  const lease = {
    claimId: "c",
    leaseId: "l",
    port: 4100,
    reusedAssignment: false,
    leaseToken: "t",
    expiresAt: "2026-11-30T04:18:12.046Z",
    newerField: { kept: true },
  };
  const acquire = declared("POST /v1/leases/acquire");
  assert.equal(checkReply(acquire, "POST", "/v1/leases/acquire", lease), lease);
  assert.throws(
    () => checkReply(acquire, "POST", "/v1/leases/acquire", { ...lease, expiresAt: "soon" }),
    /POST \/v1\/leases\/acquire answered data of the wrong shape, expiresAt/,
  );
  assert.throws(
    () =>
      checkReply(declared("GET /v1/ports"), "GET", "/v1/ports", [{ port: "80", listeners: [] }]),
    /0\.port/,
  );
});

Deno.test("a route without a reply schema is the bridge's bug, not the daemon's", () => {
  assert.throws(
    () => checkReply(undefined, "GET", "/v1/teleport", {}),
    (error) => !(error instanceof BridgeError) && /no reply schema/.test(String(error)),
  );
});

Deno.test("a tool's own bug is portreeve_internal and reported with its stack", async () => {
  const broken = defineTool({
    name: "portreeve_broken",
    title: "Broken",
    kind: "read",
    description: "Throws a TypeError.",
    input: z.strictObject({}),
    output: z.object({ b: z.number() }),
    routes: [],
    call: () => Promise.resolve(JSON.parse("null") as { a: number }).then((v) => ({ b: v.a })),
  });
  const listed: ListedTool[] = [{
    kind: "read",
    capabilities: [],
    tool: { name: broken.name, inputSchema: { type: "object" } },
  }];
  const catalogue = new Catalogue("read", listed, () => Promise.resolve([broken]));
  const bugs: { tool: string; error: unknown }[] = [];
  catalogue.onBug = (tool, error) => bugs.push({ tool, error });
  const result = await catalogue.call(broken.name, {}, {} as Omit<ToolContext, "capabilities">);
  assert.equal(result.isError, true);
  const error = (envelopeOf(result) as { error: { code: string } }).error;
  assert.equal(error.code, "portreeve_internal");
  assert.equal(bugs.length, 1);
  assert.equal(bugs[0].tool, broken.name);
  assert.match((bugs[0].error as Error).stack ?? "", /TypeError|Cannot read/);
});

Deno.test("every reply the real daemon recorded passes the schema its route declares", async () => {
  const text = await Deno.readTextFile(
    new URL("../../fixtures/daemon-http-transcript.jsonl", import.meta.url),
  );
  const pattern = (route: Route) => new RegExp(`^${route.path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
  const replies: ReplySchema[] = [...REPLY_ROUTES, HEALTH_ROUTE];
  const matchers = replies.map((reply) => ({
    reply,
    method: reply.route.slice(0, reply.route.indexOf(" ")),
    test: pattern({ path: reply.route.slice(reply.route.indexOf(" ") + 1) } as Route),
  }));
  const checked = new Set<string>();
  for (const line of text.split("\n").filter((l) => l.trim() !== "")) {
    const pair = JSON.parse(line) as {
      method: string;
      path: string;
      status: number;
      responseBody: { data?: unknown } | null;
    };
    if (pair.status < 200 || pair.status >= 300 || !pair.responseBody) continue;
    if (!("data" in pair.responseBody)) continue;
    const path = pair.path.split("?")[0];
    // The most specific pattern wins (a literal segment beats a placeholder).
    const found = matchers.filter((m) => m.method === pair.method && m.test.test(path))
      .sort((a, b) => b.reply.route.split("{").length - a.reply.route.split("{").length)
      .at(-1);
    if (!found) continue; // a route the bridge never calls (daemon lifecycle, purge…)
    assert.doesNotThrow(
      () => checkReply(found.reply, pair.method, path, pair.responseBody!.data),
      `${found.reply.route}: the recorded reply to ${pair.method} ${pair.path} is refused`,
    );
    checked.add(found.reply.route);
  }
  assert.ok(checked.size >= 40, `${checked.size} declared routes have a recorded reply`);
});

/**
 * Kinds of schema node that give back something other than what they were given when the data
 * is valid. `checkReply` returns the daemon's record as sent, typed as its schema's output, so
 * no reply schema may hold one. (`catch` acts only on invalid parts: `declared` fields the
 * bridge never reads.)
 */
const TRANSFORMING = new Set(["transform", "pipe", "default", "prefault"]);

/** The kinds of node under `schema` that transform a valid value, with where they are. */
function transforms(schema: z.ZodType, at = "", seen = new Set<unknown>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  const found = TRANSFORMING.has(def.type) ? [`${at || "(root)"}: ${def.type}`] : [];
  const walk = (child: unknown, where: string) => {
    if (child instanceof z.ZodType) found.push(...transforms(child, where, seen));
  };
  if (def.type === "object") {
    for (const [key, child] of Object.entries(def.shape as Record<string, unknown>)) {
      walk(child, at ? `${at}.${key}` : key);
    }
    walk(def.catchall, `${at}{*}`);
  }
  if (def.type === "lazy") walk((def.getter as () => unknown)(), at);
  for (
    const key of ["element", "innerType", "in", "out", "keyType", "valueType", "left", "right"]
  ) {
    walk(def[key], key === "element" || key === "valueType" ? `${at}[]` : at);
  }
  for (const option of [def.options, def.items].flat()) walk(option, at);
  return found;
}

Deno.test("no reply schema transforms a valid value, so the record as sent is its output", () => {
  const found = [...REPLY_ROUTES, HEALTH_ROUTE].flatMap((reply) =>
    transforms(reply.schema).map((where) => `${reply.route} ${where}`)
  );
  assert.deepEqual(found, []);
});

Deno.test("the transform walk finds what it should", () => {
  const nested = z.object({
    a: z.array(z.object({ b: z.string().default("x") })),
    c: z.string().transform((s) => s.length),
    d: z.union([z.int(), z.string().pipe(z.coerce.number())]),
    e: z.string().catch(""),
  });
  assert.deepEqual(transforms(nested), ["a[].b: default", "c: pipe", "c: transform", "d: pipe"]);
});
