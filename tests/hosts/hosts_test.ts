/**
 * The real host programs (Claude Code, Codex, Gemini CLI, OpenCode, Copilot CLI, Qwen Code and
 * Cline, pinned versions from npm) run the
 * bridge exactly as `config --host` configures them, against the simulator with its demo seed
 * and a fake model on 127.0.0.1; the assertions read what the model was shown.
 * Run with `deno task test:hosts`. `HOSTS_UPDATE_DOCS=1` rewrites the README's table.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import catalogue from "../../src/catalogue/tools_list.json" with { type: "json" };
import { type Toolset, TOOLSETS } from "../../src/shared/options.ts";
import { ALL_HOSTS } from "./all_hosts.ts";
import { type Session, session, STEP } from "./session.ts";
import {
  nextStepShown,
  occurrences,
  retryableShown,
  shownForm,
  showsCode,
  showsNextStep,
} from "./visible.ts";
import { parseErrorText } from "../../src/results/result.ts";
import {
  checkWorksWithTable,
  definitionBytes,
  errorBytes,
  errorFigures,
  MEASURED_ERRORS,
  printFigures,
  referenceBytes,
} from "./report.ts";

const KIND_TOOLSET: Record<string, Toolset> = {
  read: "read",
  mutation: "coordinate",
  preview: "full",
  execute: "full",
};

function catalogueNames(toolset: Toolset): string[] {
  const upTo = TOOLSETS.indexOf(toolset);
  return catalogue.tools
    .filter((entry) => TOOLSETS.indexOf(KIND_TOOLSET[entry.kind]) <= upTo)
    .map((entry) => entry.tool.name)
    .sort();
}

function result(s: Session, step: number): string {
  const shown = s.results[step];
  assert.ok(
    shown !== undefined,
    `${s.host}: the model never saw the result of step ${step} (saw ${s.results.length})`,
  );
  return shown;
}

/** A page as the server returned it to a direct client: item ids and the next cursor. */
const pageEnvelope = z.object({
  ok: z.literal(true),
  data: z.object({
    items: z.array(z.union([
      z.object({ id: z.string() }),
      z.object({ claim: z.object({ id: z.string() }).nullable() }),
    ])),
    page: z.object({ nextCursor: z.string().optional() }),
  }),
});

function truePage(s: Session, step: number): { ids: string[]; nextCursor?: string } {
  const truth = s.truth.get(step);
  assert.ok(truth !== undefined, `no direct result for step ${step}`);
  const { data } = pageEnvelope.parse(truth.structured);
  const ids = data.items.map((item) => "id" in item ? item.id : item.claim?.id ?? null)
    .filter((id) => id !== null);
  return { ids, nextCursor: data.page.nextCursor };
}

function assertError(s: Session, step: number, code: string, retryable: boolean): void {
  const shown = result(s, step);
  assert.ok(showsCode(shown, code), `${s.host}: the model does not see ${code}:\n${shown}`);
  assert.equal(
    retryableShown(shown),
    retryable,
    `${s.host}: the model does not see retryable ${retryable} for ${code}:\n${shown}`,
  );
  assert.ok(showsNextStep(shown), `${s.host}: the model is not told a next step:\n${shown}`);
}

for (const adapter of ALL_HOSTS) {
  const host = adapter.pkg.host;
  const full = () => session(adapter, "full");

  for (const toolset of adapter.toolsets ?? TOOLSETS) {
    Deno.test(`${host}: the model is offered exactly the ${toolset} toolset`, async () => {
      const s = await session(adapter, toolset);
      const offered = [...s.definitions.keys()].sort();
      assert.deepEqual(offered, catalogueNames(toolset));
      if (toolset === "read") assert.equal(offered.length, 22);
      if (toolset === "full") assert.equal(offered.length, 51);
      assert.ok(definitionBytes(s) > 0);
    });
  }

  if (adapter.check !== undefined) {
    Deno.test(`${host}: its own check reports the server connected`, async () => {
      const { check } = await full();
      assert.ok(check !== null);
      assert.ok(check.connected, `${check.command} did not report connected:\n${check.output}`);
    });
  }

  Deno.test(`${host}: the printed setup command writes the printed entry`, async () => {
    const s = await full();
    const entry = s.setupEntry;
    assert.ok(entry !== null && typeof entry === "object", `${host} wrote no portreeve entry`);
    const { command, args } = entry as { command?: unknown; args?: unknown };
    // OpenCode keeps the command and its arguments as one list.
    const launch = Array.isArray(command)
      ? { command: command[0], args: command.slice(1) }
      : { command, args };
    assert.equal(launch.command, s.config.command);
    assert.deepEqual(launch.args, s.config.args);
  });

  Deno.test(`${host}: a success result shows the model the data`, async () => {
    const s = await full();
    const ports = result(s, STEP.ports);
    for (const port of ["18180", "18181"]) {
      assert.ok(ports.includes(port), `port ${port}:\n${ports}`);
    }
    const portClaims = truePage(s, STEP.ports).ids;
    assert.equal(portClaims.length, 2);
    for (const id of portClaims) {
      assert.ok(ports.includes(id), `${host}: claim ${id} not shown:\n${ports}`);
    }
    const page = result(s, STEP.claimsPage);
    const { ids, nextCursor } = truePage(s, STEP.claimsPage);
    assert.ok(nextCursor !== undefined && nextCursor.length > 0);
    assert.ok(page.includes(nextCursor), `${host}: the next cursor is not shown:\n${page}`);
    assert.equal(ids.length, 2);
    for (const id of ids) assert.ok(page.includes(id), `claim ${id}:\n${page}`);
  });

  if (adapter.cutsLongResults) {
    Deno.test(`${host}: a limit-200 page keeps its first items and next cursor`, async () => {
      const s = await full();
      const shown = result(s, STEP.claims200);
      const { ids, nextCursor } = truePage(s, STEP.claims200);
      assert.ok(ids.length > 0 && ids.length < 200, "the page stops at its size bound");
      assert.ok(shown.includes(ids[0]), `${host} lost the first item`);
      assert.ok(nextCursor !== undefined && shown.includes(nextCursor), `${host} lost the cursor`);
    });
  } else {
    Deno.test(`${host}: a full limit-200 page reaches the model whole, cursor included`, async () => {
      const s = await full();
      const shown = result(s, STEP.claims200);
      const { ids, nextCursor } = truePage(s, STEP.claims200);
      // More than 200 claims exist: the bridge stops the page at its size bound and continues.
      assert.ok(ids.length > 0 && ids.length < 200, "the page stops at its size bound");
      assert.ok(nextCursor !== undefined && shown.includes(nextCursor), `${host} lost the cursor`);
      const missing = ids.filter((id) => !shown.includes(id));
      assert.equal(
        missing.length,
        0,
        `${host} cut the page: ${shown.length} chars shown:\n` +
          shown.slice(0, 400),
      );
    });
  }

  Deno.test(`${host}: a daemon error reaches the model with code, retryable, next step`, async () => {
    assertError(await full(), STEP.notFound, "portreeve_not_found", false);
  });

  Deno.test(`${host}: an invalid-input error reaches the model with code, retryable, next step`, async () => {
    assertError(await full(), STEP.invalidInput, "portreeve_invalid_input", false);
  });

  Deno.test(`${host}: the daemon-down error reaches the model with code, retryable, the socket and its own doctor`, async () => {
    const s = await full();
    assertError(s, STEP.daemonDown, "portreeve_unavailable", true);
    // The bridge knew the host by the name it gave itself: the step names this host's doctor.
    const next = nextStepShown(result(s, STEP.daemonDown)) ?? "";
    assert.match(next, new RegExp(`doctor --host ${host}\\b`), `${host}: ${next}`);
    assert.doesNotMatch(next, /--host HOST\b/, `${host}: ${next}`);
    // And the socket it found nothing on.
    assert.ok(occurrences(result(s, STEP.daemonDown), s.socket) >= 1, `${host}: no socket path`);
  });

  Deno.test(`${host}: each error reaches the model once in at most 1.5× the reference's bytes`, async () => {
    const s = await full();
    for (const [step, code] of MEASURED_ERRORS) {
      const shown = result(s, step);
      const truth = s.truth.get(step);
      assert.ok(truth !== undefined, `no direct result for ${code}`);
      const form = shownForm(shown, truth.text);
      assert.ok(form !== null, `${host}: our ${code} text is not what the model saw:\n${shown}`);
      assert.equal(
        shown.split(form).length - 1,
        1,
        `${host}: ${code} shown more than once:\n${shown}`,
      );
      const { message } = parseErrorText(truth.text)!;
      assert.equal(occurrences(shown, message), 1, `${host}: ${code}'s message more than once`);
      const ours = errorBytes(form, s.socket);
      const theirs = referenceBytes(code);
      assert.ok(
        ours <= 1.5 * theirs,
        `${host}: ${code} is ${ours} B as shown, over 1.5× the reference's ${theirs} B:\n${form}`,
      );
    }
    console.log(errorFigures(s).join("\n"));
  });

  Deno.test(`${host}: a preview tells the model a person must approve it`, async () => {
    const shown = result(await full(), STEP.preview);
    const next = nextStepShown(shown);
    assert.ok(next !== null, `${host}: no nextStep in the preview:\n${shown}`);
    assert.match(next, /approv/i);
    assert.match(next, /\b(person|user|human)\b/i);
    assert.match(next, /portreeve_claim_delete_execute/);
  });

  Deno.test(`${host}: no raw credential appears in anything the host sent`, async () => {
    const s = await full();
    // The abandon used the handle the model was shown: the daemon then saw the raw token.
    const abandoned = result(s, STEP.abandon);
    assert.ok(!/isError|"ok":false|error/i.test(abandoned), `abandon failed:\n${abandoned}`);
    assert.ok(s.credentials.length > 0, "the daemon handed out no credential to look for");
    for (const call of s.calls) {
      const sent = `${call.path}\n${JSON.stringify(call.headers)}\n${call.body}`;
      for (const secret of s.credentials) {
        for (const piece of [secret, secret.slice(0, 16), secret.slice(-16)]) {
          assert.ok(!sent.includes(piece), `${host} sent part of a raw credential to the model`);
        }
      }
    }
  });
}

Deno.test("figures: tool-definition bytes per host and toolset, largest page result", async () => {
  const all: Session[] = [];
  for (const adapter of ALL_HOSTS) {
    for (const toolset of adapter.toolsets ?? TOOLSETS) all.push(await session(adapter, toolset));
  }
  printFigures(all);
});

Deno.test('README "Works with" table is what the hosts showed', async () => {
  const all: Session[] = [];
  for (const adapter of ALL_HOSTS) all.push(await session(adapter, "full"));
  await checkWorksWithTable(all);
});
