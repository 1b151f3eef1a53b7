/**
 * The GitHub workflows, parsed as GitHub reads them: every push to a branch and every pull
 * request runs `.ci/run`, and the release workflow builds and publishes nothing unless that
 * same test workflow passed on the tagged commit (every other job needs it, directly or
 * through another job).
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { z } from "zod";

const ROOT = new URL("../../../", import.meta.url);

const Step = z.looseObject({
  uses: z.string().optional(),
  run: z.string().optional(),
  name: z.string().optional(),
});
const Job = z.looseObject({
  uses: z.string().optional(),
  needs: z.union([z.string(), z.array(z.string())]).optional(),
  "runs-on": z.unknown().optional(),
  "timeout-minutes": z.number().optional(),
  steps: z.array(Step).optional(),
});
type Job = z.infer<typeof Job>;
const Workflow = z.looseObject({
  name: z.string(),
  // YAML reads the key `on` as a string; an event without settings is null.
  on: z.record(z.string(), z.unknown()),
  jobs: z.record(z.string(), Job),
});
type Workflow = z.infer<typeof Workflow>;

async function workflow(name: string): Promise<Workflow> {
  const text = await Deno.readTextFile(new URL(`.github/workflows/${name}`, ROOT));
  return Workflow.parse(parse(text));
}

const needsOf = (job: Job): string[] =>
  job.needs === undefined ? [] : typeof job.needs === "string" ? [job.needs] : job.needs;

/** Every job `name` waits for, directly or through others. */
function upstream(flow: Workflow, name: string, seen = new Set<string>()): Set<string> {
  for (const need of needsOf(flow.jobs[name])) {
    assert.ok(flow.jobs[need], `job ${name} needs ${need}, which does not exist`);
    if (!seen.has(need)) {
      seen.add(need);
      upstream(flow, need, seen);
    }
  }
  return seen;
}

/** The jobs of `flow` that are the CI workflow, called as a whole. */
function ciCalls(flow: Workflow): string[] {
  return Object.entries(flow.jobs).filter(([, job]) => job.uses === "./.github/workflows/ci.yml")
    .map(([name]) => name);
}

function steps(flow: Workflow): z.infer<typeof Step>[] {
  return Object.values(flow.jobs).flatMap((job) => job.steps ?? []);
}

/** Why `release` could publish an untested commit; empty when it cannot. */
function ungated(release: Workflow): string[] {
  const gates = ciCalls(release);
  if (gates.length === 0) return ["no job calls ./.github/workflows/ci.yml"];
  return Object.keys(release.jobs).filter((name) => !gates.includes(name))
    .filter((name) => !gates.some((gate) => upstream(release, name).has(gate)))
    .map((name) => `job ${name} does not wait for the tests`);
}

Deno.test("ci: every branch push and pull request runs .ci/run, and others may call it", async () => {
  const ci = await workflow("ci.yml");
  assert.deepEqual(Object.keys(ci.on).sort(), ["pull_request", "push", "workflow_call"]);
  const push = z.object({ branches: z.array(z.string()) }).parse(ci.on.push);
  assert.deepEqual(push.branches, ["**"], "every branch (tags are the release's)");
  assert.equal(ci.on.pull_request, null, "every pull request, whatever its branch");
  const runs = steps(ci).map((step) => step.run ?? "");
  assert.ok(runs.some((run) => /^bash \.ci\/run$/m.test(run)), runs.join("\n"));
  await Deno.stat(new URL(".ci/run", ROOT));
  for (const job of Object.values(ci.jobs)) {
    assert.ok((job["timeout-minutes"] ?? Infinity) <= 90, "the team's CI gives 90 minutes");
  }
});

Deno.test("release: nothing is built or published before the tests pass on that commit", async () => {
  const release = await workflow("release.yml");
  assert.deepEqual(Object.keys(release.on), ["push"]);
  assert.deepEqual(ungated(release), []);
  // What the check must refuse: a job beside the tests, or no test job at all.
  const loose = structuredClone(release);
  loose.jobs.publish = { "runs-on": "ubuntu-24.04", steps: [{ run: "gh release create" }] };
  assert.deepEqual(ungated(loose), ["job publish does not wait for the tests"]);
  const untested = structuredClone(release);
  for (const gate of ciCalls(untested)) delete untested.jobs[gate];
  assert.deepEqual(ungated(untested), ["no job calls ./.github/workflows/ci.yml"]);
});

Deno.test("workflows: actions are pinned to a major version and scripts they run exist", async () => {
  for (const name of ["ci.yml", "release.yml"]) {
    const flow = await workflow(name);
    for (const step of steps(flow)) {
      if (step.uses !== undefined) assert.match(step.uses, /^[\w-]+\/[\w-]+@v\d+$/, name);
      for (const [, path] of (step.run ?? "").matchAll(/(?:^|\s)((?:scripts|\.ci)\/[\w./-]+)/g)) {
        await Deno.stat(new URL(path, ROOT));
      }
    }
  }
});

Deno.test("release: server.json is listed in the MCP Registry after npm, only when npm published", async () => {
  const release = await workflow("release.yml");
  const listing = Object.entries(release.jobs).filter(([, job]) =>
    (job.steps ?? []).some((step) => /mcp-publisher publish/.test(step.run ?? ""))
  );
  assert.equal(listing.length, 1, "one job lists server.json");
  const [name, job] = listing[0];
  const npm = Object.entries(release.jobs).find(([, other]) =>
    (other.steps ?? []).some((step) => /npm publish/.test(step.run ?? ""))
  );
  assert.ok(npm !== undefined, "a job publishes to npm");
  assert.ok(upstream(release, name).has(npm[0]), `${name} waits for ${npm[0]}`);
  const step = (job.steps ?? []).find((s) => /mcp-publisher publish/.test(s.run ?? ""))!;
  const run = step.run ?? "";
  // Nothing is listed unless npm's credentials are set (so the package it points to exists).
  const guard = run.indexOf('if [ -z "$NPM_TOKEN" ]');
  assert.ok(guard !== -1 && guard < run.indexOf("mcp-publisher publish"), run);
  assert.equal(
    z.object({ NPM_TOKEN: z.string() }).parse(Reflect.get(step, "env")).NPM_TOKEN,
    "${{ secrets.NPM_TOKEN }}",
  );
  assert.match(run, /mcp-publisher login github-oidc/);
  assert.equal(Reflect.get(Reflect.get(job, "permissions") ?? {}, "id-token"), "write");
});
