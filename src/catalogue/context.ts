/** What a tool's `call` may use: the daemon client, custody, facts about this bridge. */
import type { DaemonClient } from "../daemon/client.ts";
import type { SocketSource } from "../shared/socket_location.ts";
import type { Custody } from "../custody/mod.ts";
import type { LauncherRenewalResult } from "./renewers.ts";
import type { Memory } from "./memory.ts";
import type { ApprovalMode } from "../shared/options.ts";
import type { HostChannel } from "../shared/host_channel.ts";
import type { ReceiptBook } from "./receipt_book.ts";
import type { Approvals } from "./approval.ts";
import type { PageFit } from "../results/pagination.ts";
import type { AnswerWidget, ResultShownAs } from "../shared/host_treatment.ts";

interface BridgeFacts {
  runId: string;
  label: string | null;
  socketPath: string;
  socketSource: SocketSource;
  toolset: string;
  /** Capabilities the registered tools need from the daemon, for the compatibility report. */
  requiredCapabilities: readonly string[];
  /** Set when the process may not use its socket (outside the permission grant). */
  misconfiguration?: string;
  /** Whether executes ask the person through the host (`serve --approval`). */
  approval: ApprovalMode;
  /** How long a question waits for the person's answer. */
  approvalMs: number;
}

export interface Services {
  daemon: DaemonClient;
  bridge: BridgeFacts;
  /** Raw lease tokens and launcher credentials, behind opaque handles. */
  custody: Custody<LauncherRenewalResult>;
  /** What this process already did, so a repeated call returns the achieved state. */
  memory: Memory;
  /** Receipts this bridge's previews returned, and the person's answers about them. */
  receipts: ReceiptBook;
  /** The minter of the approval proofs `daemon` accepts, held where tools cannot use it. */
  approvals: Approvals;
}

/**
 * The daemon as a tool sees it: requests to the routes its definition declares (the catalogue
 * refuses any other, see `runTool`), the compatibility probe diagnostics reports on, and the
 * give-back of an answer its caller will not read (daemon_calls.ts `stillWanted`).
 */
export type ToolDaemon = Pick<
  DaemonClient,
  "request" | "compatibility" | "invalidate" | "giveBack"
>;

export interface ToolContext extends Omit<Services, "daemon"> {
  daemon: ToolDaemon;
  /** Aborted when the host cancels the request or the bridge shuts down. */
  signal: AbortSignal;
  /** The running tool's daemon capabilities, sent as `requiredCapabilities` on POSTs. */
  capabilities: readonly string[];
  /** How this request can reach the person at the host (MCP elicitation), if at all. */
  host: HostChannel;
  /**
   * What a page of this call may hold: the host's result limit less the room around the items,
   * and each item's size in the form this call shows it (pages stop by these).
   */
  pageFit?: PageFit;
  /**
   * The largest result (bytes of what the host shows its model) the connected host shows whole,
   * known from its name (src/shared/host_treatment.ts); unset: the smallest any known host shows.
   */
  resultLimitBytes?: number;
  /** How the connected host shows a result (one envelope, or the result as JSON); unset: one. */
  resultShownAs?: ResultShownAs;
  /**
   * Whether a failed call goes to the connected host flagged with `isError`, known from its
   * name likewise; unset: flagged, the MCP default.
   */
  flagsToolErrors?: boolean;
  /**
   * The connected host's profile id (`--host` NAME), known from its name likewise; named in
   * next steps the user runs (`doctor --host NAME`). Unset for a host of no known name.
   */
  hostProfile?: string;
  /**
   * How the connected host draws the approval question's yes/no field, known from its name
   * likewise; unset: not known, and the question's words fit any widget.
   */
  answerWidget?: AnswerWidget;
}
