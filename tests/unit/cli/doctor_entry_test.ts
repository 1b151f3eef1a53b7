/**
 * What `doctor --host` says when the host has no entry: each file it read named once, with the
 * scopes it holds (Claude Code keeps its local and user entries in one ~/.claude.json).
 */
import assert from "node:assert/strict";
import { lookedIn } from "../../../src/cli/doctor_entry.ts";
import { entryPlaces } from "../../../src/profiles/entry_places.ts";
import { findHost } from "../../../src/profiles/mod.ts";

Deno.test("doctor --host: a file holding two scopes is named once, with both", () => {
  const places = entryPlaces(findHost("claude")!, {
    env: (name) => name === "HOME" ? "/home/me" : undefined,
    os: "linux",
    cwd: "/home/me/work",
  });
  assert.equal(
    lookedIn(places),
    "/home/me/.claude.json (local and user scope), /home/me/work/.mcp.json (project scope)",
  );
});
