/** What uninstall says: removed, left, moved aside, and the next steps with their exit code. */
import assert from "node:assert/strict";
import { uninstallOutcome } from "../../../../src/cli/install/uninstall_report.ts";
import type { UninstallReport } from "../../../../src/cli/install/uninstaller.ts";
import { HOST_PROFILES } from "../../../../src/profiles/mod.ts";

const ROOT = "/home/ada/.deno";
const AGAIN = "`deno task uninstall`";
const outcome = (report: UninstallReport) => uninstallOutcome(ROOT, report, HOST_PROFILES, AGAIN);

Deno.test("uninstall report: nothing there", () => {
  assert.deepEqual(outcome({ removed: [], left: [], movedAside: [] }), {
    lines: [`Nothing to remove: no portreeve-mcp installation under ${ROOT}.`],
    code: 0,
  });
});

Deno.test("uninstall report: all removed → 0, and every host's entry named", () => {
  const { lines, code } = outcome({
    removed: [`${ROOT}/bin/portreeve-mcp`, `${ROOT}/lib/portreeve-mcp/`],
    left: [],
    movedAside: [],
  });
  assert.equal(code, 0);
  assert.deepEqual(lines.slice(0, 4), [
    "Removed:",
    `  ${ROOT}/bin/portreeve-mcp`,
    `  ${ROOT}/lib/portreeve-mcp/`,
    "Next:",
  ]);
  assert.equal(lines.length, 5 + HOST_PROFILES.length);
  assert.ok(lines.includes("    Claude Code: `claude mcp remove --scope user portreeve`"));
  // The one command that takes out exactly what setup wrote, for every host with an entry.
  assert.ok(
    lines.some((line) => /setup --host NAME --remove` takes out .*\(NAME: claude, /.test(line)),
  );
});

Deno.test("uninstall report: an edited file kept → 1 with a next step; what --force moved is named", () => {
  const edited = `${ROOT}/lib/portreeve-mcp/main.js`;
  const { lines, code } = outcome({
    removed: [`${ROOT}/bin/portreeve-mcp`],
    left: [
      { path: edited, why: "was changed after this installer wrote it", edited: true },
      { path: `${ROOT}/lib/portreeve-mcp/`, why: "it still holds main.js" },
    ],
    movedAside: [
      {
        path: `${ROOT}/bin.replaced-20300101T000000Z`,
        original: `${ROOT}/bin`,
        originalFree: true,
      },
      {
        path: `${ROOT}/lib/portreeve-mcp/deno.replaced-20300101T000000Z`,
        original: `${ROOT}/lib/portreeve-mcp/deno`,
        originalFree: true,
      },
    ],
  });
  assert.equal(code, 1);
  assert.ok(
    lines.includes(
      `  ${ROOT}/bin.replaced-20300101T000000Z: was ${ROOT}/bin; if it is yours, put it back: ` +
        `\`mv ${ROOT}/bin.replaced-20300101T000000Z ${ROOT}/bin\``,
    ),
    lines.join("\n"),
  );
  assert.ok(lines.some((line) => line.endsWith("deno; look at it, then delete it yourself")));
  assert.ok(
    lines.includes(
      `- ${edited} was changed after install wrote it, so it was kept (it may hold your work): ` +
        `look at it, delete it yourself (\`rm ${edited}\`), then run ${AGAIN} again to remove ` +
        "the rest.",
    ),
    lines.join("\n"),
  );
});

Deno.test("uninstall report: only a folder left for someone else's files → 0", () => {
  const { code } = outcome({
    removed: [`${ROOT}/bin/portreeve-mcp`],
    left: [{ path: `${ROOT}/bin/`, why: "it still holds other-tool" }],
    movedAside: [],
  });
  assert.equal(code, 0);
});
