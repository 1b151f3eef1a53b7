/**
 * `setup --host` over every host profile. A host whose file setup edits gets it in that
 * host's published format (tests/fixtures/host_files/: comments, other servers, odd
 * indentation), and also with CRLF line endings, without a final newline, empty, and missing:
 * setup writes exactly the entry `config` renders and keeps every other value; a second run
 * changes no byte; `--dry-run` writes nothing; `--remove` gives the file back byte for byte, also
 * after a second setup moved the entry to another socket; the
 * mode is kept and a backup left beside it; a file that does not parse is refused with its
 * line and column and left alone; a link is edited where it points and stays a link. A host
 * whose own command writes the entry has both that command and its removal. The real programs
 * do the same in tests/hosts/setup_test.ts.
 */
import { symlink } from "../../support/symlink.ts";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { HOST_PROFILES, removalCommand, renderEntry } from "../../../src/profiles/mod.ts";
import type { HostProfile } from "../../../src/profiles/profile.ts";
import { entryPlaces, type PlaceContext } from "../../../src/profiles/entry_places.ts";
import { runSetup } from "../../../src/cli/setup.ts";
import { languageOf, parseDocument, valueAt } from "../../../src/cli/host/document.ts";
import { BACKUP_SUFFIX } from "../../../src/cli/host/file_write.ts";
import { detectInstallation } from "../../../src/shared/installation.ts";
import { locateSocket } from "../../../src/shared/socket_location.ts";
import { UsageError } from "../../../src/cli/options.ts";

const FILES = new URL("../../fixtures/host_files/", import.meta.url);

function contextIn(home: string): PlaceContext {
  return { env: (name) => name === "HOME" ? home : undefined, os: "linux", cwd: `${home}/work` };
}

function capture() {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    io: { stdout: (t: string) => out.stdout += t, stderr: (t: string) => out.stderr += t },
  };
}

async function setup(home: string, host: string, ...more: string[]) {
  const { out, io } = capture();
  const socket = `${home}/p.sock`;
  const code = await runSetup(["--host", host, "--socket", socket, ...more], io, contextIn(home));
  return { code, ...out };
}

function setupFile(profile: HostProfile, home: string) {
  const place = entryPlaces(profile, contextIn(home)).find((p) => p.setup)!;
  return { file: place.file, path: [...place.at, "portreeve"] };
}

function rendered(profile: HostProfile, home: string) {
  return renderEntry(
    { host: profile.id, portable: false, socket: locateSocket(`${home}/p.sock`) },
    detectInstallation(),
  ).server;
}

async function fixture(profile: HostProfile): Promise<string> {
  for await (const entry of Deno.readDir(FILES)) {
    if (entry.name.replace(/\.\w+$/, "") === profile.id) {
      return await Deno.readTextFile(new URL(entry.name, FILES));
    }
  }
  throw new Error(`no file in tests/fixtures/host_files/ for ${profile.id}`);
}

/** The file's data with the entry (and a map left empty by it) taken out, to compare the rest. */
function without(text: string, file: string, path: string[]) {
  const data = structuredClone(parseDocument(text, languageOf(file), file));
  for (let end = path.length; end > 0; end--) {
    const parent = valueAt(data, path.slice(0, end - 1)) as Record<string, unknown> | undefined;
    const value = parent?.[path[end - 1]];
    const empty = typeof value === "object" && value !== null && Object.keys(value).length === 0;
    if (parent === undefined || (end < path.length && !empty)) break;
    delete parent[path[end - 1]];
  }
  return data;
}

const FILE_HOSTS = HOST_PROFILES.filter((profile) => profile.entry?.setup === "file");

Deno.test("setup: every host profile says how setup writes it, generic excepted", async () => {
  for (const profile of HOST_PROFILES) {
    if (profile.entry === null) {
      assert.equal(profile.id, "generic");
      await assert.rejects(() => setup("/nowhere", profile.id), UsageError);
      continue;
    }
    if (profile.entry.setup === "command") {
      assert.ok(profile.setupCommand !== null, profile.id);
      assert.ok(removalCommand(profile) !== null, `${profile.id}: the host's removal command`);
    } else {
      assert.ok(await fixture(profile), profile.id);
    }
  }
  assert.ok(FILE_HOSTS.length >= 8);
});

for (const profile of FILE_HOSTS) {
  Deno.test(`setup: ${profile.id}'s file keeps every other byte, and --remove gives it back`, async () => {
    const original = await fixture(profile);
    const variants: Record<string, string | null> = {
      "its published format": original,
      "CRLF line endings": original.replaceAll("\n", "\r\n"),
      "no final newline": original.trimEnd(),
      "an empty file": "",
      "no file yet": null,
    };
    for (const [name, text] of Object.entries(variants)) {
      const home = await Deno.makeTempDir({ prefix: "prmcp-setup-" });
      try {
        const { file, path } = setupFile(profile, home);
        await Deno.mkdir(dirname(file), { recursive: true });
        if (text !== null) await Deno.writeTextFile(file, text, { mode: 0o640 });
        const where = `${profile.id}, ${name}`;

        const dry = await setup(home, profile.id, "--dry-run");
        assert.equal(dry.code, 0, `${where}: ${dry.stderr}`);
        assert.match(dry.stdout, /^@@ /m, where);
        assert.equal(await readOrNull(file), text, `${where}: --dry-run wrote`);

        const first = await setup(home, profile.id);
        assert.equal(first.code, 0, `${where}: ${first.stderr}`);
        // The check it prints is of this entry: doctor looks where setup pointed it.
        assert.ok(first.stdout.includes(`doctor --host ${profile.id} --socket ${home}/p.sock\``));
        const after = await Deno.readTextFile(file);
        const data = parseDocument(after, languageOf(file), file);
        assert.deepEqual(valueAt(data, path), rendered(profile, home), where);
        if (text !== null) {
          assert.deepEqual(
            without(after, file, path),
            without(text, file, path),
            `${where}: another value changed`,
          );
          assert.equal((await Deno.stat(file)).mode! & 0o777, 0o640, `${where}: mode`);
          assert.equal(await Deno.readTextFile(file + BACKUP_SUFFIX), text, `${where}: backup`);
          if (text.includes("\r\n")) assert.ok(!/[^\r]\n/.test(after), `${where}: a bare LF`);
        }

        const second = await setup(home, profile.id);
        assert.equal(second.code, 0, where);
        assert.match(second.stdout, /nothing to change/, where);
        assert.equal(await Deno.readTextFile(file), after, `${where}: a second run changed bytes`);

        const removed = await setup(home, profile.id, "--remove");
        assert.equal(removed.code, 0, `${where}: ${removed.stderr}`);
        const left = await Deno.readTextFile(file);
        if (text !== null) {
          assert.equal(left, text, `${where}: --remove did not give the file back`);
        }
        assert.equal(valueAt(parseDocument(left, languageOf(file), file), path), undefined, where);
        const again = await setup(home, profile.id, "--remove");
        assert.match(again.stdout, /nothing to remove/, where);

        // The socket moved: setup again with the new one, and --remove still gives it back.
        await Deno.remove(file + BACKUP_SUFFIX).catch(() => {});
        if (text === null) await Deno.remove(file);
        else await Deno.writeTextFile(file, text);
        assert.equal((await setup(home, profile.id)).code, 0, where);
        const moved = await setup(home, profile.id, "--socket", `${home}/moved.sock`);
        assert.equal(moved.code, 0, `${where}: ${moved.stderr}`);
        const updated = parseDocument(await Deno.readTextFile(file), languageOf(file), file);
        assert.match(JSON.stringify(valueAt(updated, path)), /moved\.sock/, where);
        assert.equal((await setup(home, profile.id, "--remove")).code, 0, where);
        if (text !== null) {
          assert.equal(await Deno.readTextFile(file), text, `${where}: --remove after a move`);
        }
      } finally {
        await Deno.remove(home, { recursive: true });
      }
    }
  });
}

async function readOrNull(file: string): Promise<string | null> {
  return await Deno.readTextFile(file).catch(() => null);
}

Deno.test("setup: a file that does not parse is refused with its line and column, untouched", async () => {
  for (const profile of FILE_HOSTS) {
    const home = await Deno.makeTempDir({ prefix: "prmcp-setup-" });
    try {
      const { file } = setupFile(profile, home);
      const broken = languageOf(file) === "toml"
        ? "a = 1\nb = = 2\n"
        : '{\n  "a": 1\n  "b": 2\n}\n';
      await Deno.mkdir(dirname(file), { recursive: true });
      await Deno.writeTextFile(file, broken);
      const result = await setup(home, profile.id);
      assert.equal(result.code, 1, profile.id);
      assert.ok(result.stderr.includes(`${file}:`), result.stderr);
      assert.match(result.stderr, /:(2|3):\d+: not valid/, result.stderr);
      assert.equal(await Deno.readTextFile(file), broken, profile.id);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  }
});

Deno.test("setup: a host folder not made yet is named, and no change is shown as made", async () => {
  for (const profile of FILE_HOSTS) {
    const home = await Deno.makeTempDir({ prefix: "prmcp-setup-" });
    try {
      const result = await setup(home, profile.id);
      assert.equal(result.code, 1, profile.id);
      assert.match(result.stderr, /does not exist: start the host once/, profile.id);
      assert.equal(result.stdout, "", `${profile.id}: a diff for a change not made`);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  }
});

Deno.test("setup: a file its host cannot read is refused where the host stops reading, untouched", async () => {
  const refused = { plain: '{\n  "a": 1 // mine\n}\n', comments: '{\n  "a": [1, 2,],\n}\n' };
  const strict = FILE_HOSTS.filter((profile) => profile.entry!.jsonSyntax !== undefined);
  assert.deepEqual(strict.map((p) => p.id).sort(), ["cline", "gemini", "qwen"]);
  for (const profile of strict) {
    const home = await Deno.makeTempDir({ prefix: "prmcp-setup-" });
    try {
      const { file } = setupFile(profile, home);
      const text = refused[profile.entry!.jsonSyntax!];
      await Deno.mkdir(dirname(file), { recursive: true });
      await Deno.writeTextFile(file, text);
      const result = await setup(home, profile.id);
      assert.equal(result.code, 1, profile.id);
      const where = profile.entry!.jsonSyntax === "plain" ? "2:10: a comment" : "2:13: a comma";
      assert.ok(result.stderr.includes(`${file}:${where}`), result.stderr);
      assert.ok(result.stderr.includes(`which ${profile.label} cannot read`), result.stderr);
      assert.equal(await Deno.readTextFile(file), text, profile.id);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  }
});

Deno.test("setup: a host file that is a link is edited where it points, and stays a link", async () => {
  const profile = HOST_PROFILES.find((p) => p.id === "zed")!;
  const home = await Deno.makeTempDir({ prefix: "prmcp-setup-" });
  try {
    const { file, path } = setupFile(profile, home);
    const dotfile = join(home, "dotfiles", "zed.json");
    await Deno.mkdir(dirname(dotfile), { recursive: true });
    await Deno.mkdir(dirname(file), { recursive: true });
    const original = await fixture(profile);
    await Deno.writeTextFile(dotfile, original);
    await symlink(dotfile, file);
    const result = await setup(home, profile.id);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /is a symbolic link to .*: editing/);
    assert.ok((await Deno.lstat(file)).isSymlink, "the link was replaced");
    const data = parseDocument(await Deno.readTextFile(dotfile), "json", dotfile);
    assert.ok(isDeepStrictEqual(valueAt(data, path), rendered(profile, home)));
    await setup(home, profile.id, "--remove");
    assert.equal(await Deno.readTextFile(dotfile), original);
    assert.ok((await Deno.lstat(file)).isSymlink);

    await Deno.remove(dotfile);
    await Deno.remove(dotfile + BACKUP_SUFFIX);
    const dangling = await setup(home, profile.id);
    assert.equal(dangling.code, 1);
    assert.match(dangling.stderr, /symbolic link to nothing/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
