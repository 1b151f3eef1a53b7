/**
 * The exchanges recorded with the real PortReeve daemon (tests/fixtures/daemon-http-transcript
 * .jsonl), by sequence number: what was sent, in the form a tool hands it to the daemon client
 * (query apart from the path, body without the client block), and the reply as it came.
 */
import { z } from "zod";
import type { Reply, Sent } from "./scripted_daemon.ts";

const line = z.object({
  seq: z.number(),
  method: z.enum(["GET", "POST"]),
  path: z.string(),
  requestBody: z.record(z.string(), z.unknown()).nullable(),
  status: z.number(),
  responseBody: z.unknown(),
});

const text = await Deno.readTextFile(
  new URL("../fixtures/daemon-http-transcript.jsonl", import.meta.url),
);
const bySeq = new Map(
  text.split("\n").filter((l) => l.length > 0).map((l) => {
    const record = line.parse(JSON.parse(l));
    return [record.seq, record];
  }),
);

const clientBlock = z.object({ requiredCapabilities: z.array(z.string()) }).passthrough();

export interface Exchange {
  /** What the recorded request carried, as a tool sends it. */
  sent: Sent;
  reply: Reply;
  /** The `data` of a success reply. */
  // deno-lint-ignore no-explicit-any -- recorded JSON, read field by field in assertions
  data: any;
}

/**
 * The recorded exchanges the tests use, by what they are: the name says which request, the
 * number is its place in the transcript (and in the reference bridge's recorded session, which
 * the bench replays).
 */
export const EXCHANGES = {
  health: 1,
  healthAgain: 2,
  config: 6,
  leaseAcquire: 10,
  leaseConfirm: 15,
  claimsOfWorkspace: 18,
  claimGet: 20,
  portsClaimed: 22,
  portInspect: 24,
  portsListening: 26,
  portReclaimPreview: 30,
  runRelease: 32,
  runReleaseAgain: 34,
  claimDeletePreview: 38,
  claimDeleteExecute: 40,
  leaseAcquireToAbandon: 46,
  leaseAbandon: 48,
  stackDocument: 50,
  stackValidate: 52,
  stackValidateInvalid: 54,
  stackApplyPreview: 56,
  stackApplyExecute: 58,
  stacksList: 64,
  stackGet: 66,
  stackStatus: 69,
  stackPrepare: 72,
  stackPrepareAgain: 75,
  generationsList: 78,
  generationGet: 81,
  activationBegin: 84,
  activationResolve: 91,
  activationConfirm: 94,
  activationConfirmSecond: 97,
  activationGet: 100,
  activationSnapshot: 107,
  activationsList: 113,
  launcherBegin: 116,
  launcherRenew: 118,
  launcherComplete: 120,
  launcherOperationGet: 123,
  launcherOperationsList: 126,
  activationEndConflict: 128,
  activationEnd: 130,
  activationEndAgain: 132,
  activationReconcile: 135,
  settingsPreview: 140,
  claimsPrunePreview: 142,
  stacksPrunePreview: 144,
  historyFirstPage: 152,
  historyNextPage: 154,
  claimNotFound: 159,
  historyBadCursor: 164,
} as const;

export type ExchangeName = keyof typeof EXCHANGES;

export function recorded(name: ExchangeName): Exchange {
  const seq = EXCHANGES[name];
  const record = bySeq.get(seq);
  if (!record) throw new Error(`no recorded exchange ${name} (${seq})`);
  const url = new URL(record.path, "http://daemon");
  const { client, ...body } = record.requestBody ?? {};
  const payload = record.method === "GET" ? Object.fromEntries(url.searchParams) : body;
  const capabilities = record.method === "POST"
    ? clientBlock.parse(client).requiredCapabilities
    : [];
  const envelope = z.object({ data: z.unknown().optional() }).passthrough().parse(
    record.responseBody,
  );
  return {
    sent: { method: record.method, path: url.pathname, payload, capabilities },
    reply: { status: record.status, body: record.responseBody },
    data: envelope.data,
  };
}

/** The lease_acquire arguments of the recorded session (its exchange `leaseAcquire`). */
export const RECORDED_ACQUIRE = {
  claim: {
    project: "anchor-demo",
    workspaceRoot: "/home/dev/work/demo-app",
    component: "api",
    endpoint: "http",
  },
  allocation: { preferredPort: 18080 },
};
