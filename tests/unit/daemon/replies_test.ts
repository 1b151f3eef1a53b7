/**
 * The reply table: every route refuses a wrong shape as `portreeve_invalid_response` naming
 * the route, unknown keys pass through, and a route the table lacks is the bridge's own bug.
 * A bug in a tool is answered `portreeve_internal` and reported with its stack.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { checkReply, REPLY_ROUTES } from "../../../src/daemon/replies.ts";
import { BridgeError } from "../../../src/errors.ts";
import { Catalogue, type ListedTool } from "../../../src/catalogue/catalogue.ts";
import { defineTool } from "../../../src/catalogue/define.ts";
import type { ToolContext } from "../../../src/catalogue/context.ts";

/** A concrete path for a route pattern. */
function pathOf(route: string): string {
  return route.slice(route.indexOf(" ") + 1).replace(/\{[^}]+\}/g, "0f0f0f0f");
}

Deno.test("every reply route refuses null data, naming the route", () => {
  for (const { method, route } of REPLY_ROUTES) {
    assert.throws(() => checkReply(method, `${pathOf(route)}?limit=1`, null), (error) => {
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
  assert.equal(checkReply("POST", "/v1/leases/acquire", lease), lease);
  assert.throws(
    () => checkReply("POST", "/v1/leases/acquire", { ...lease, expiresAt: "soon" }),
    /POST \/v1\/leases\/acquire answered data of the wrong shape, expiresAt/,
  );
  assert.throws(() => checkReply("GET", "/v1/ports", [{ port: "80", listeners: [] }]), /0\.port/);
});

Deno.test("a route without a reply schema is the bridge's bug, not the daemon's", () => {
  assert.throws(
    () => checkReply("GET", "/v1/teleport", {}),
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
    call: () => Promise.resolve(JSON.parse("null") as { a: number }).then((v) => ({ b: v.a })),
    summary: () => "never",
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
  const error = (result.structuredContent as { error: { code: string } }).error;
  assert.equal(error.code, "portreeve_internal");
  assert.equal(bugs.length, 1);
  assert.equal(bugs[0].tool, broken.name);
  assert.match((bugs[0].error as Error).stack ?? "", /TypeError|Cannot read/);
});
