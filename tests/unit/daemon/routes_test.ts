/**
 * Route templates are checked where they are declared, and every route the bridge declares is
 * one of the protocol's: a malformed template fails at its `get`/`post`, a tool whose input
 * fills its route's segments fails at its definition when a segment has no field, and every
 * route of the effects map (each tool's, the compatibility probe's, custody's renewals) is a
 * route of the protocol-faithful simulator with the same method and segment names, a POST
 * declared to only read being one the protocol marks read-only, and one that changes state not.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { get, post, type Route } from "../../../src/daemon/routes.ts";
import { coordinates, possibleEffects, reads } from "../../../src/daemon/effects.ts";
import { effectsMap } from "../../../src/catalogue/effects_map.ts";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { RENEWAL_ROUTES } from "../../../src/catalogue/renewers.ts";
import { HEALTH_ROUTE } from "../../../src/daemon/replies.ts";
import { readTool } from "../../../src/catalogue/read_tool.ts";
import { allRoutes } from "../../../src/simulator/routes/mod.ts";

const ANY = z.looseObject({});

Deno.test("routes: a template that could not be filled or matched fails where it is declared", () => {
  for (
    const [path, why] of [
      ["/v1/claims/{claimId", /neither lowercase words nor one \{name\}/],
      ["/v1/claims//x", /neither lowercase words/],
      ["/v1/claims/{claimId}/", /neither lowercase words/],
      ["/v1/claims?project=x", /neither lowercase words/],
      ["/v1/Claims", /neither lowercase words/],
      ["/v1/claims/{}", /neither lowercase words/],
      ["/v1/claims/x{claimId}", /neither lowercase words/],
      ["/v2/claims", /is not \/v1\/ followed/],
      ["v1/claims", /is not \/v1\/ followed/],
      ["/v1", /is not \/v1\/ followed/],
      ["/v1/a/{id}/b/{id}", /\{id\} appears twice/],
    ] as const
  ) {
    assert.throws(() => get(path, ANY), why, path);
    assert.throws(() => post(path, ANY, reads()), why, path);
  }
  assert.deepEqual(get("/v1/a/{aId}/b-c/{port}", ANY).segments, ["aId", "port"]);
});

Deno.test("routes: a tool filling segments from its input fails at its definition when a field is missing", () => {
  const route = get("/v1/claims/{claimId}", ANY);
  const define = (params?: (input: { id: string }) => { claimId: string }) =>
    readTool({
      name: "portreeve_test_get",
      title: "t",
      description: "t",
      input: z.strictObject({ id: z.string() }),
      route,
      params,
    });
  assert.throws(
    () => define(),
    /portreeve_test_get: GET \/v1\/claims\/\{claimId\} is filled from its input, which has no claimId/,
  );
  // Told how instead, it is defined.
  define((input) => ({ claimId: input.id }));
});

/** `{name}` in the bridge's templates is `:name` in the simulator's. */
const protocolForm = (route: Route) => route.path.replace(/\{([^}]+)\}/g, ":$1");

Deno.test("routes: every route the bridge declares is the protocol's, read-only exactly when declared so", () => {
  const declared = [
    ...new Set([
      ...ALL_TOOLS.flatMap((tool) => tool.routes),
      HEALTH_ROUTE,
      ...Object.values(RENEWAL_ROUTES),
    ]),
  ];
  assert.deepEqual(
    [...new Set(declared.map((route) => route.route))].sort(),
    effectsMap().map((row) => row.route).sort(),
    "the routes walked here are the effects map's",
  );
  const wrong: string[] = [];
  for (const route of declared) {
    const theirs = allRoutes.find((r) =>
      r.method === route.method && r.path === protocolForm(route)
    );
    if (!theirs) {
      wrong.push(`${route.route}: no such route in the protocol`);
      continue;
    }
    const onlyReads = possibleEffects(route.effect).every((effect) => effect.level === "read");
    if (route.method === "POST" && onlyReads !== (theirs.readOnly === true)) {
      wrong.push(
        `${route.route}: declared ${onlyReads ? "to only read" : "to change state"}, ` +
          `the protocol says ${theirs.readOnly ? "it only reads" : "it changes state"}`,
      );
    }
  }
  assert.deepEqual(wrong, []);
  // What it refuses, it refuses.
  const typo = post("/v1/leases/{leaseId}/renews", ANY, coordinates("x"));
  assert.ok(!allRoutes.some((r) => r.path === protocolForm(typo)));
});
