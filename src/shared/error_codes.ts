/**
 * Every error code a tool result can carry, whose doing it is, and the one thing to do next —
 * for the code, and for each `details.reason` (or `receiptCode` / `documentCode`) the daemon
 * or the bridge sends with it. This table is the only place a next step is written: results
 * look it up, `deno task gen` prints it into docs/errors.md, and a test walks it.
 *
 * Messages say what happened; next steps say what to do. A next step is read by a model, so
 * it never asks it to start, install or stop anything on the user's machine: that is a
 * person's job, and the step says so.
 */
import { Codes, type Details } from "./errors.ts";

/** Who can fix it. */
export type Fault =
  | "arguments" // the call's own arguments
  | "state" // the registry's state (another agent, a lease, a process)
  | "person" // the person or their host answered, or could not be asked
  | "setup" // how PortReeve and the bridge are installed and started
  | "daemon" // the daemon failed or answered something unreadable
  | "bridge"; // this bridge: its bug or its own limits

export type Step = string | ((details: Details) => string);

interface CodeEntry {
  fault: Fault;
  /** Whether the same call may succeed later: true, false, or it depends on the case. */
  retryable: boolean | "varies";
  meaning: string;
  /** The step for any host; the form with the host's name when the bridge knows it, below. */
  nextStep: string;
  /** The step naming the connected host (its profile id, as `--host` takes it). */
  hostStep?: (host: string) => string;
  /** Steps for the `details.reason`, `receiptCode` or `documentCode` sent with this code. */
  reasons?: Readonly<Record<string, ReasonEntry>>;
}

export interface ReasonEntry {
  /** Who sends it: the daemon (protocol v1) or this bridge. */
  from: "daemon" | "bridge";
  nextStep: Step;
}

const daemon = (nextStep: string): ReasonEntry => ({ from: "daemon", nextStep });
const bridge = (nextStep: string): ReasonEntry => ({ from: "bridge", nextStep });

const PREVIEW_AGAIN = "preview again and ask the user to approve the new preview.";

/** What a host that cannot ask leaves to the person: the opt-in they may write in its entry. */
const ASK_THE_PERSON =
  "Tell the user this change needs their approval and this host cannot ask for it; if they want the host's own tool prompt to stand in for the question, they can add --approval auto to portreeve's entry in the host configuration.";

/**
 * What only the user can look into: which socket PortReeve answers on and what the host's entry
 * names. `doctor --host` checks both; the agent asks the user to run it and starts nothing.
 */
function doctorStep(host: string, which: string): string {
  return `Ask the user to run \`portreeve-mcp doctor --host ${host}\`${which}: it checks what this host runs and names the fix. Retry once they have; start nothing yourself.`;
}

/** How to make a change small enough to ask about, by the action of its receipt. */
const NARROWER: Readonly<Record<string, string>> = {
  "claims.prune":
    "Prune fewer claims at a time (a larger olderThanMilliseconds), or delete them one by one with portreeve_claim_delete_preview.",
  "stacks.prune": "Prune fewer stacks at a time (a larger olderThanMilliseconds).",
  "settings.update": "Change fewer settings, or fewer ports, in each update.",
  "port.reclaim":
    "Tell the user which processes hold the port: there are too many to put to them, even in parts.",
};

/** Codes the daemon sends, as the bridge names them (`details.daemonCode` keeps its own). */
export const DAEMON_CODES = {
  conflict: Codes.conflict,
  incompatible_protocol: Codes.incompatible,
  invalid_input: Codes.invalidInput,
  invalid_lease_token: Codes.invalidLeaseToken,
  invalid_operation_credential: Codes.invalidOperationCredential,
  lease_expired: Codes.leaseExpired,
  lease_not_pending: Codes.leaseNotPending,
  not_found: Codes.notFound,
  unavailable: Codes.evidenceUnavailable,
  internal: Codes.daemonError,
} as const;

export type DaemonCode = keyof typeof DAEMON_CODES;

type Code = (typeof Codes)[keyof typeof Codes];

export const ERROR_CODES: Readonly<Record<Code, CodeEntry>> = {
  [Codes.invalidInput]: {
    fault: "arguments",
    retryable: false,
    meaning:
      "The arguments are not valid: the schema, a relative path, a cursor from elsewhere, or the daemon's own checks.",
    nextStep: "Correct the arguments the message names and call again.",
    reasons: {
      too_deep: bridge(
        "The value nests too deep for any PortReeve input: send it flatter.",
      ),
      message_too_deep: bridge(
        "The call nests deeper than details.limit levels, so it was not read: send its arguments flatter.",
      ),
      message_too_many_values: bridge(
        "The call holds more than details.limit JSON values, so it was not read: send fewer values in one call.",
      ),
      foreign_cursor: bridge("Omit afterCursor to read the first page."),
      cursor_scope_mismatch: bridge(
        "Repeat the call with the filters the cursor came from, or omit afterCursor to start over.",
      ),
      attached_operation_invalid: daemon(
        "Use executionMode attached only with operation start, or choose finite.",
      ),
      binding_component_unknown: daemon(
        "Name only components of the stack's definition in bindings.",
      ),
      docker_definition_missing: daemon(
        "Bind this component as process, or give its definition a docker section first.",
      ),
      docker_endpoint_definition_missing: daemon(
        "Give every endpoint of a docker-bound component docker.containerPort, or bind it as process.",
      ),
      generation_stack_mismatch: daemon("Pass a generationId that belongs to this stack."),
      invalid_stack_root: daemon("Pass an existing directory as an absolute stackRoot."),
      invalid_stack_definition: daemon(
        "Fix the definition as details.issues say; portreeve_stack_definition_validate checks it.",
      ),
      optional_required_dependency: daemon(
        "List the optional endpoint the dependency needs in requiredEndpoints.",
      ),
      unsupported_stack_filter: daemon("Filter stacks by stackRoot, not workspaceRoot."),
    },
  },
  [Codes.notFound]: {
    fault: "arguments",
    retryable: false,
    meaning: "No record with that id (claim, stack, activation, generation, operation, receipt).",
    nextStep: "Check the id; a list tool shows the valid ones.",
    reasons: {
      not_found: daemon("Execute only a receiptId a preview returned, or preview again."),
      not_previewed_here: bridge(
        "Preview again through this bridge and execute the receipt that preview returns.",
      ),
    },
  },
  [Codes.conflict]: {
    fault: "state",
    retryable: "varies",
    meaning:
      "The registry's state does not allow it now (a port, lease, run, activation or receipt stands in the way).",
    nextStep:
      "Read the current state; retry only once what blocks it (the message says what) has changed.",
    reasons: {
      claim_pending: daemon(
        "Another caller is acquiring this claim: wait until its lease is confirmed or expires, then acquire again.",
      ),
      port_assigned: daemon("That port belongs to another claim: choose another port."),
      port_pending: daemon(
        "That port has a pending lease: wait until it is confirmed or expires, then retry.",
      ),
      active_run: daemon(
        "A run still holds the claim: if it is yours, release it (portreeve_run_release), then retry.",
      ),
      pending_lease: daemon(
        "A lease is pending on the claim: wait until its holder confirms or abandons it, then retry.",
      ),
      live_listener: daemon(
        "A live listener holds that port: choose another port, or ask the user to approve a reclaim (portreeve_port_reclaim_preview).",
      ),
      unchanged: daemon(
        "The port is unchanged: the claim already has it, so there is nothing to do.",
      ),
      reserved: daemon("That port is reserved by another claim or lease: choose another port."),
      stack_root_overlap: daemon(
        "Use a stackRoot that neither contains nor lies inside the other stack's root (details name it).",
      ),
      launcher_operation_active: daemon(
        "Wait until the stack's active launcher operation completes, then retry.",
      ),
      activation_live: daemon(
        "The stack has a live activation: end it (portreeve_activation_end) before this change.",
      ),
      live_activation: daemon(
        "The stack has a live activation: end it (portreeve_activation_end) before this change.",
      ),
      claim_mode: daemon(
        "The claim is ephemeral and cannot back a stack endpoint: give the endpoint another component or endpoint name.",
      ),
      exact_port_mismatch: daemon(
        "The claim holds another port than exactPort: change exactPort, or reassign the claim through its preview first.",
      ),
      listener_present: daemon(
        "A listener still serves the endpoint: once its process has stopped, call portreeve_activation_end again.",
      ),
      provider_present: daemon(
        "An endpoint's provider is still running: once it has stopped, call portreeve_activation_end again.",
      ),
      provider_not_gone: daemon(
        "An endpoint's provider is still present: once it is gone, call again.",
      ),
      leases_pending: daemon(
        "Confirm, skip or abandon the activation's pending endpoint leases first, then end it.",
      ),
      stale_generation: daemon(
        "The stack changed since this generation: prepare a new one (portreeve_stack_prepare) and use its id.",
      ),
      binding_kind_mismatch: daemon(
        "Confirm with the bindingKind the endpoint was begun with (details.bindingKind).",
      ),
      activation_not_reconcilable: daemon(
        "This activation's state cannot be reconciled: read it with portreeve_activation_get.",
      ),
      activation_inactive: daemon(
        "The activation is not active: read it with portreeve_activation_get, or begin a new one.",
      ),
      required_dependency_unavailable: daemon(
        "A required dependency endpoint is not confirmed: confirm it first, then resolve again.",
      ),
      generation_endpoint_missing: daemon(
        "That endpoint is not part of the generation: check the component and endpoint names.",
      ),
      docker_definition_missing: daemon(
        "The component has no docker section: confirm it as a process endpoint instead.",
      ),
      "container-not-running": daemon(
        "The container is not running: confirm once the container serving this endpoint runs.",
      ),
      "container-label-mismatch": daemon(
        "The container lacks the labels this endpoint expects (details.label): confirm with the container begun for it.",
      ),
      "container-publication-mismatch": daemon(
        "The container does not publish the endpoint's port on 127.0.0.1 as details say: confirm with one that does.",
      ),
      caller_operation_exists: daemon(
        "That callerOperationId was used already: begin with a new UUID.",
      ),
      launcher_operation_terminal: daemon(
        "The operation has finished: read it with portreeve_launcher_operation_get.",
      ),
      launcher_completion_mismatch: daemon(
        "It was completed with other values: read the recorded outcome with portreeve_launcher_operation_get.",
      ),
      receipt_mismatch: daemon(
        `The receipt is for another target or the evidence changed: send the target exactly as the preview had it, or ${PREVIEW_AGAIN}`,
      ),
      receipt_expired: daemon(`Receipts last 5 minutes: ${PREVIEW_AGAIN}`),
      stack_definition_changed: daemon(
        `portreeve.stack.json changed since the preview: ${PREVIEW_AGAIN}`,
      ),
      stack_definition_read_failed: daemon(
        "The daemon could not read or write portreeve.stack.json (details.path): tell the user.",
      ),
      stack_definition_verification_failed: daemon(
        `portreeve.stack.json did not read back as written: tell the user, then ${PREVIEW_AGAIN}`,
      ),
      stack_definition_too_large: daemon(
        "portreeve.stack.json is over 1 MiB and will not be replaced: tell the user.",
      ),
      stack_definition_not_regular: daemon(
        "portreeve.stack.json is not a regular file and will not be replaced: tell the user.",
      ),
      nothing_to_do: bridge(
        "Nothing to do: the preview found nothing to change; preview again only once the state has changed.",
      ),
      preview_refused: bridge(
        "Its preview's blockers say what stands in the way: tell the user, and preview again once that has changed.",
      ),
      settled_with_other_arguments: bridge(
        "The first call's outcome stands: read the current state instead of repeating with other arguments.",
      ),
      lease_held_with_other_arguments: bridge(
        "Repeat the original arguments to get the held lease, or abandon it (portreeve_lease_abandon with details.credentialHandle) before acquiring with new ones.",
      ),
      activation_held_with_other_arguments: bridge(
        "Repeat the original arguments to get the held activation, or abandon its pending endpoints and end it (portreeve_activation_end) before beginning with new ones.",
      ),
      operation_held_with_other_arguments: bridge(
        "Repeat the original arguments to get the held operation, or complete it (portreeve_launcher_operation_complete) before beginning with new ones.",
      ),
    },
  },
  [Codes.leaseExpired]: {
    fault: "state",
    retryable: false,
    meaning: "The lease's deadline passed before this call.",
    nextStep: "The lease lapsed: acquire or begin again for a new one.",
  },
  [Codes.leaseLapsed]: {
    fault: "state",
    retryable: true,
    meaning:
      "The daemon granted a lease, but it expired before the bridge could keep it (a busy daemon sets the expiry from the start of a slow acquire); nothing is held.",
    nextStep:
      "Call the same tool again for a new lease (lease_acquire, or activation_begin). If leases keep lapsing, the daemon is too busy for its lease TTL: ask the user about raising leaseTtlMilliseconds.",
  },
  [Codes.leaseNotPending]: {
    fault: "state",
    retryable: false,
    meaning: "The lease is already confirmed, abandoned or expired.",
    nextStep: "Read the lease's state before acting again: an earlier call may have settled it.",
  },
  [Codes.invalidLeaseToken]: {
    fault: "state",
    retryable: false,
    meaning: "The daemon did not accept the lease's credential.",
    nextStep: "Do not reuse this handle: acquire or begin again for a new credential.",
  },
  [Codes.invalidOperationCredential]: {
    fault: "state",
    retryable: false,
    meaning: "The daemon did not accept the launcher operation's credential.",
    nextStep: "Do not reuse this handle: read the operation with portreeve_launcher_operation_get.",
  },
  [Codes.credentialUnavailable]: {
    fault: "state",
    retryable: false,
    meaning:
      "The handle is unknown, settled, expired or another bridge's, or its renewal failed (details.renewalFailure).",
    nextStep:
      "Read the current state (port, activation or operation); acquire or begin again if you still need it.",
  },
  [Codes.operationDeadlinePassed]: {
    fault: "state",
    retryable: false,
    meaning:
      "A launcher operation's deadline passed before it could be renewed (the renewalFailure of its lapsed handle).",
    nextStep:
      "The operation lapsed: read it with portreeve_launcher_operation_get, and begin a new one if the launcher still needs it.",
  },
  [Codes.evidenceUnavailable]: {
    fault: "setup",
    retryable: false,
    meaning:
      "The daemon could not observe evidence it needs, such as Docker or an endpoint's provider.",
    nextStep: "Tell the user what details say the daemon cannot observe; retry once it can.",
    reasons: {
      provider_unobservable: daemon(
        "The daemon cannot see whether the endpoint's provider stopped: once it has, call portreeve_activation_end again.",
      ),
    },
  },
  [Codes.unavailable]: {
    fault: "setup",
    retryable: true,
    meaning:
      "Nothing answers on the socket this bridge uses (PortReeve stopped, or listening on another socket), or the daemon did not answer in time.",
    nextStep: doctorStep("HOST", " (HOST: their agent host, as in claude)"),
    hostStep: (host) => doctorStep(host, ""),
    reasons: {
      timeout: bridge(
        "No answer before this bridge's timeout (details.waitedMs): the daemon is stuck or far behind. Tell the user; a repeat with the same arguments waits for a change already sent instead of sending it again.",
      ),
      socket_untrusted: bridge(
        "Tell the user another user's socket (or a link) now stands at the daemon's socket path (details say which); nothing was sent to it and held leases are kept. Retry once they have their own PortReeve listening there again; start nothing yourself.",
      ),
    },
  },
  [Codes.incompatible]: {
    fault: "setup",
    retryable: false,
    meaning:
      "The daemon's protocol or capabilities do not match this bridge (details list what is missing).",
    nextStep:
      "Tell the user PortReeve and this bridge need matching versions (details say what is missing); do not retry until then.",
  },
  [Codes.misconfigured]: {
    fault: "setup",
    retryable: false,
    meaning: "This bridge's permission grant does not cover the socket it was told to use.",
    nextStep:
      "Tell the user this bridge must be relaunched with a grant for its socket; no call will work until then.",
  },
  [Codes.invalidResponse]: {
    fault: "daemon",
    retryable: false,
    meaning: "Something answered on the socket that this bridge cannot read as a PortReeve reply.",
    nextStep:
      "Tell the user the socket answered something that is not a PortReeve reply; do not retry until they have looked.",
  },
  [Codes.daemonError]: {
    fault: "daemon",
    retryable: false,
    meaning:
      "The daemon failed on its side (its code `internal`, or an HTTP 5xx); details.daemonCode or details.status say which.",
    nextStep:
      "Tell the user the daemon failed (its log has the cause); read the current state before trying again.",
  },
  [Codes.cancelled]: {
    fault: "person",
    retryable: false,
    meaning: "The host cancelled the call before it finished.",
    nextStep: "Call again if the result is still needed.",
    reasons: {
      reclaim_cancelled: bridge(
        "The reclaim question went with the cancelled call: call portreeve_lease_acquire again if the lease is still needed, and the user will be asked again.",
      ),
    },
  },
  [Codes.approvalDeclined]: {
    fault: "person",
    retryable: false,
    meaning:
      "The host answered decline or cancel to the approval question (a person, or the host by itself); nothing was sent.",
    nextStep:
      "Ask the user what they want instead; do not call this execute again for the same receipt.",
    reasons: {
      reclaim_declined: bridge(
        "The reclaim was not approved: ask the user what they want instead, and do not repeat this acquire with that replacementPolicy (never leaves running processes alone).",
      ),
    },
  },
  [Codes.approvalUnavailable]: {
    fault: "person",
    retryable: "varies",
    meaning: "No answer to the approval question could be had; nothing was sent.",
    nextStep: "Call the execute again to ask again while its receipt is valid, or preview again.",
    reasons: {
      no_answer: bridge(
        "No answer came in time: call the execute again to ask again while its receipt is valid, or preview again.",
      ),
      host_failed: bridge(
        "The host failed to ask: call the execute again to try again while its receipt is valid, or preview again.",
      ),
      question_open: bridge(
        "Wait for the answer to the question already open for this receipt, then call the execute again.",
      ),
      host_cannot_ask: bridge(ASK_THE_PERSON),
      reclaim_host_cannot_ask: bridge(
        `Acquire with replacementPolicy never instead, or ${
          ASK_THE_PERSON.charAt(0).toLowerCase()
        }${ASK_THE_PERSON.slice(1)}`,
      ),
      too_long_to_ask: {
        from: "bridge",
        nextStep: (details) =>
          NARROWER[String(details.action)] ??
            "Tell the user this change is too large to put to them, even in parts.",
      },
      reclaim_too_long_to_ask: bridge(
        "Acquire with replacementPolicy never instead, and tell the user which processes hold the claim's port: there are too many to put to them, even in parts.",
      ),
      reclaim_question_open: bridge(
        "Wait for the answer to the question already open for this acquire, then call again if the lease is still needed.",
      ),
      reclaim_no_answer: bridge(
        "No answer came in time: call portreeve_lease_acquire again to ask again, or use replacementPolicy never.",
      ),
      reclaim_host_failed: bridge(
        "The host failed to ask: call portreeve_lease_acquire again to try again, or use replacementPolicy never.",
      ),
      reclaim_evidence_changed: bridge(
        "The claim's run changed while the user was asked: call portreeve_lease_acquire again, and the user will be asked about what runs now.",
      ),
    },
  },
  [Codes.approvalNeedsReceipt]: {
    fault: "person",
    retryable: false,
    meaning:
      "An input value would signal processes (an acquire that reclaims), and this host cannot ask the user to approve it; nothing was sent.",
    nextStep:
      "Do not repeat this call with that value. To free the port, call portreeve_port_reclaim_preview (toolset full), show it to the user and call portreeve_port_reclaim_execute only after they approve; then acquire with replacementPolicy never.",
    reasons: {
      host_cannot_ask: bridge(
        "This host cannot ask the user: use portreeve_port_reclaim_preview, show it to the user, and call portreeve_port_reclaim_execute only after they approve; then acquire with replacementPolicy never.",
      ),
    },
  },
  [Codes.bridgeBusy]: {
    fault: "bridge",
    retryable: true,
    meaning: "This bridge already runs and queues as many calls as it allows; nothing was sent.",
    nextStep: "Wait for some of your earlier calls to finish, then retry.",
  },
  [Codes.bridgeResourceLimit]: {
    fault: "bridge",
    retryable: true,
    meaning: "This bridge process ran out of file descriptors; the daemon was not reached.",
    nextStep:
      "Retry in a moment; if it keeps happening, tell the user the bridge needs a higher open-file limit.",
  },
  [Codes.credentialCustodyClosed]: {
    fault: "bridge",
    retryable: false,
    meaning: "The bridge is shutting down and holds no credentials any more.",
    nextStep: "Make no more calls that use a credential handle: this bridge is stopping.",
  },
  [Codes.credentialHandleCollision]: {
    fault: "bridge",
    retryable: false,
    meaning:
      "Minting a unique credential handle failed (a broken random source); nothing was held.",
    nextStep: "Tell the user this bridge's random source failed; do not retry.",
  },
  [Codes.internal]: {
    fault: "bridge",
    retryable: false,
    meaning: `A bug in this bridge (only its own; the daemon's failures are ${Codes.daemonError}).`,
    nextStep:
      "Tell the user the bridge hit a bug (its stderr log has the cause); do not repeat the same call.",
  },
};

/**
 * The details read by name: by a next step or meaning in this table (`details.<key>`), by
 * docs/errors.md, or by a script branching on them. An error keeps each of these even when its
 * message happens to hold the same word (`outcome: "unknown"` beside "an unknown error code");
 * other details the message already states are left out, so nothing is said twice.
 */
export const DETAILS_READ_BY_NAME: ReadonlySet<string> = new Set([
  "outcome",
  "checkWith",
  "daemonCode",
  "status",
  "reason",
  "receiptCode",
  "documentCode",
  "limit",
  "issues",
  "bindingKind",
  "label",
  "path",
  "credentialHandle",
  "renewalFailure",
  "lateAnswer",
  "waitedMs",
]);

/**
 * A change whose answer was lost (details.outcome "unknown") may have been applied, whatever
 * its code: checking comes before anything else.
 */
export const OUTCOME_UNKNOWN: ReasonEntry = {
  from: "bridge",
  nextStep: (details) => {
    const tool = typeof details.checkWith === "string" ? details.checkWith : "a read tool";
    const how = typeof details.checkHow === "string"
      ? ` ${details.checkHow}`
      : " to see the current state";
    return `It may have been applied: before repeating it, call ${tool}${how}.`;
  },
};

/** For a code this table does not know (a bug: a test walks every code the bridge makes). */
const UNKNOWN_CODE = "Do not retry unchanged; tell the user if the message does not say why.";

/** The key a reason is looked up by: the bridge's or daemon's reason, else the receipt's or document's code. */
export function reasonKey(details: Details): string | undefined {
  for (const key of ["reason", "receiptCode", "documentCode"] as const) {
    const value = details[key];
    if (typeof value === "string") return value;
  }
  return undefined;
}

function isCode(code: string): code is Code {
  return Object.hasOwn(ERROR_CODES, code);
}

/**
 * The step declared for this code and these details; `host` is the connected host's profile id
 * when the bridge knows it (from the name the host gave), for the steps that name it.
 */
export function nextStepFor(code: string, details: Details, host?: string): string {
  if (details.outcome === "unknown") return render(OUTCOME_UNKNOWN.nextStep, details);
  if (!isCode(code)) return UNKNOWN_CODE;
  const entry = ERROR_CODES[code];
  const reasons = entry.reasons ?? {};
  const key = reasonKey(details);
  // Own keys only: a daemon's reason such as "constructor" must not reach Object's members.
  const reason = key !== undefined && Object.hasOwn(reasons, key) ? reasons[key] : undefined;
  if (reason) return render(reason.nextStep, details);
  return host !== undefined && entry.hostStep ? entry.hostStep(host) : entry.nextStep;
}

function render(step: Step, details: Details): string {
  return typeof step === "string" ? step : step(details);
}
