/**
 * What the client checks at the socket path before each request (src/daemon/socket_identity.ts):
 * another user's socket or a link is refused before anything is sent; a verdict is tied to the
 * socket it was made on, through its times once it has settled and through a witness
 * connection while it is young, so a daemon restarted with the same inode and the same times
 * is still told apart. Clocks, disks and witnesses are the test's own, but for the last test,
 * which checks on real sockets the system facts the witness rests on.
 */
import assert from "node:assert/strict";
import { SETTLE_MS, SocketIdentity, type Witness } from "../../../src/daemon/socket_identity.ts";
import { BridgeError } from "../../../src/shared/errors.ts";
import { tick } from "../../support/watched.ts";

const PATH = "/home/ada/.local/state/portreeve/portreeve.sock";
const BORN = 1_800_000_000_000;
const USER = 1000;

/** What lstat says of a socket (or, with `kind`, of something else) at the path. */
function info(fields: Partial<Deno.FileInfo> = {}): Deno.FileInfo {
  return {
    isFile: false,
    isDirectory: false,
    isSymlink: false,
    isSocket: true,
    isFifo: false,
    isCharDevice: false,
    isBlockDevice: false,
    size: 0,
    mtime: new Date(BORN),
    atime: new Date(BORN),
    birthtime: new Date(BORN),
    ctime: new Date(BORN),
    dev: 64,
    ino: 4242,
    mode: 0o140600,
    nlink: 1,
    uid: USER,
    gid: USER,
    rdev: 0,
    blksize: 4096,
    blocks: 0,
    ...fields,
  };
}

/** A witness whose daemon end the test closes. */
class FakeWitness implements Witness {
  open = true;
  closed = false;
  asked = 0;
  alive(): Promise<boolean> {
    this.asked++;
    return Promise.resolve(this.open);
  }
  close(): void {
    this.closed = true;
  }
}

/** A SocketIdentity on a disk that shows `at()`, a clock at `now`, and witnesses it records. */
function rig(at: () => Deno.FileInfo | Error, now = BORN + 10) {
  const witnesses: FakeWitness[] = [];
  const clock = { now };
  const identity = new SocketIdentity(PATH, {
    user: USER,
    lstat: () => {
      const seen = at();
      if (seen instanceof Error) throw seen;
      return seen;
    },
    connect: () => {
      const witness = new FakeWitness();
      witnesses.push(witness);
      return Promise.resolve(witness);
    },
    now: () => clock.now,
  });
  return { identity, witnesses, clock };
}

const probe = () => Promise.resolve("verdict");

/** The BridgeError `promise` rejects with. */
const refusal = (promise: Promise<unknown>): Promise<BridgeError> =>
  promise.then(() => assert.fail("not refused"), (error: unknown) => {
    assert.ok(error instanceof BridgeError, String(error));
    return error;
  });

Deno.test("a young socket's verdict holds while its witness does, even with the same inode and times", async () => {
  const { identity, witnesses } = rig(() => info());
  assert.equal(await identity.vouch(probe), "verdict");
  assert.equal(witnesses.length, 1, "a witness for a socket made 10 ms ago");
  assert.equal(await identity.check(), true);
  // The daemon stops; another binds the path and gets the same inode and times.
  witnesses[0].open = false;
  assert.equal(await identity.check(), false);
  identity.forget();
  assert.ok(witnesses[0].closed);
  assert.equal(await identity.check(), true, "no verdict held: nothing to compare");
});

Deno.test("a settled socket needs no witness: a later socket's times differ", async () => {
  let seen = info();
  const { identity, witnesses } = rig(() => seen, BORN + SETTLE_MS);
  await identity.vouch(probe);
  assert.equal(witnesses.length, 0);
  assert.equal(await identity.check(), true);
  // A daemon started now, at the same inode.
  const later = new Date(BORN + SETTLE_MS);
  seen = info({ mtime: later, birthtime: later, ctime: later });
  assert.equal(await identity.check(), false);
  // Any other difference counts as well.
  for (const fields of [{ ino: 4243 }, { dev: 65 }, { mode: 0o140755 }, { ctime: later }]) {
    seen = info(fields);
    assert.equal(await identity.check(), false, JSON.stringify(fields));
  }
});

Deno.test("the witness is let go once it has seen the socket settle", async () => {
  const { identity, witnesses, clock } = rig(() => info());
  await identity.vouch(probe);
  clock.now = BORN + SETTLE_MS;
  assert.equal(await identity.check(), true);
  assert.ok(witnesses[0].closed, "let go");
  const asked = witnesses[0].asked;
  assert.equal(await identity.check(), true);
  assert.equal(witnesses[0].asked, asked, "the times suffice now");
});

Deno.test("without birth or change times a socket never settles: its witness stays", async () => {
  const { identity, witnesses, clock } = rig(() => info({ birthtime: null, mtime: null }));
  await identity.vouch(probe);
  clock.now = BORN + 10 * SETTLE_MS;
  assert.equal(await identity.check(), true);
  assert.equal(witnesses[0].closed, false);
});

Deno.test("another user's socket, or a link, is refused before anything is sent to it", async () => {
  for (
    const [seen, message] of [
      [info({ uid: 1001 }), /^The socket at \S+ belongs to user 1001, not to this bridge's user/],
      [info({ isSocket: false, isSymlink: true }), /^\S+ is now a symbolic link, which could/],
    ] as const
  ) {
    const { identity, witnesses } = rig(() => seen);
    let probed = false;
    const refused = await refusal(identity.vouch(() => {
      probed = true;
      return probe();
    }));
    assert.equal(probed, false, "no probe");
    assert.equal(witnesses.length, 0, "no witness");
    assert.match(refused.message, message);
    assert.equal(refused.code, "portreeve_unavailable");
    assert.equal(refused.retryable, true, "a held credential is kept");
    assert.equal(refused.details.reason, "socket_untrusted");
    assert.equal(refused.details.socketPath, PATH);
    assert.equal((await refusal(identity.check())).message, refused.message);
  }
});

Deno.test("a socket gone or changed unties the verdict; one this process may not see is left alone", async () => {
  let seen: Deno.FileInfo | Error = info();
  const { identity } = rig(() => seen, BORN + SETTLE_MS);
  await identity.vouch(probe);
  seen = new Deno.errors.NotFound("gone");
  assert.equal(await identity.check(), false);
  seen = info({ isSocket: false, isFile: true });
  assert.equal(await identity.check(), false, "a file takes no connection: as good as gone");
  seen = new Deno.errors.NotCapable("outside the grant");
  assert.equal(await identity.check(), true, "the request itself says it is not granted");
});

Deno.test("a verdict whose socket changed while it was made ties nothing: judged again", async () => {
  let calls = 0;
  const { identity } = rig(() => info({ ino: calls++ === 0 ? 1 : 2 }), BORN + SETTLE_MS);
  await identity.vouch(probe);
  assert.equal(await identity.check(), false);
  // A witness that cannot be opened leaves a young socket's verdict untied as well.
  const young = new SocketIdentity(PATH, {
    user: USER,
    lstat: () => info(),
    connect: () => Promise.reject(new Error("Too many open files")),
    now: () => BORN,
  });
  await young.vouch(probe);
  assert.equal(await young.check(), false);
});

Deno.test("a verdict forgotten while it was being made ties nothing, and its witness closes", async () => {
  const { identity, witnesses } = rig(() => info());
  let answer: ((value: string) => void) | undefined;
  const made = identity.vouch(() => new Promise<string>((resolve) => answer = resolve));
  while (answer === undefined) await Promise.resolve();
  identity.forget();
  answer("verdict");
  await made;
  assert.ok(witnesses[0].closed);
  assert.equal(await identity.check(), true, "nothing tied");
});

Deno.test("on real sockets: the witness dies with the daemon's end, and pins the inode while alive", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/d.sock`;
  try {
    let listener = Deno.listen({ transport: "unix", path });
    const ino = Deno.lstatSync(path).ino;
    const identity = new SocketIdentity(path, { now: () => 0 });
    const accepted = listener.accept();
    await identity.vouch(probe);
    const daemonEnd = await accepted;
    assert.equal(await identity.check(), true);
    // While the daemon holds the witness, a daemon bound anew at the path gets another inode.
    listener.close();
    listener = Deno.listen({ transport: "unix", path });
    assert.notEqual(Deno.lstatSync(path).ino, ino);
    assert.equal(await identity.check(), false);
    listener.close();
    // And once the daemon closes its end, a zero-byte write on the witness fails at once.
    const again = Deno.listen({ transport: "unix", path });
    const next = again.accept();
    await identity.vouch(probe);
    const end = await next;
    assert.equal(await identity.check(), true);
    end.close();
    // Released once no process holds that end (a child this process forks meanwhile may, until
    // it runs its program): the witness is seen dead within a few turns of the event loop.
    let turns = 0;
    while (await identity.check()) {
      assert.ok(++turns < 1_000, "the witness outlived the daemon's end");
      await tick();
    }
    identity.close();
    again.close();
    daemonEnd.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
