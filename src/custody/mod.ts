/**
 * # Credential custody
 *
 * The daemon hands out one-time secrets: standalone lease tokens, activation lease tokens
 * (one per endpoint, grouped per activation) and launcher-operation credentials. `Custody`
 * keeps them in process memory only and gives the model opaque handles instead.
 *
 * ## Handles
 * 32 random bytes (crypto.getRandomValues), base64url without padding: 43 characters
 * `^[A-Za-z0-9_-]{43}$`, 256 bits. Process-local maps only; nothing is persisted, so a handle
 * means nothing to another process or another `Custody`. A handle is bound to its kind and
 * owner: lease, activation (activationId) or launcher (operationId). Unknown, expired,
 * settled, foreign or mis-bound handles all throw the same `CredentialUnavailableError`.
 *
 * ## Renewal (automatic, through injected `Renewers`; custody never imports the client)
 * - Cadence (cadence.ts): a renewal goes out when the credential has `renewalMargin(TTL,
 *   daemon delay)` left: max(TTL/3, min(2·TTL/3, 10 s)), moved earlier by twice the daemon's
 *   observed delay (`daemonDelayMs`) up to half the TTL; never more often than min(remaining/3,
 *   10 s), and launchers no later than the daemon's renewAfterMilliseconds. Up to a 15 s TTL on
 *   a prompt daemon that is the design's min(10 s, remaining/3); longer TTLs cost fewer
 *   renewals. An activation renews all its held leases in ONE batch call, timed by its
 *   soonest-expiring lease. `renewLauncherNow` heartbeats at once (joining any renewal in
 *   flight) and rejects a failure with `RenewalFailedError` (renewer's code and retryable
 *   flag, scrubbed message, daemon `details` kept only if secret-free).
 * - One timer per group and at most one renewal per group in flight (concurrent renewals are
 *   coalesced). A renewal is awaited until the credential expires plus `answerGraceMs` (2 s),
 *   never abandoned and re-sent meanwhile; renewers get the expiry as `dueAt` so the most
 *   urgent one is sent first.
 * - Failures are never swallowed. Transient (`retryable: true`), or a renewal still unanswered
 *   halfway to the expiry ("late"): the credential is kept and `use*()` returns
 *   `renewalFailure` ({code, message, at}) until a renewal succeeds; `takeWarnings()` lists it
 *   as at risk. Terminal (anything else): the credential is erased and a secret-free tombstone
 *   (bounded, dropped at custody expiry) makes the next `use*()` throw
 *   `CredentialUnavailableError` carrying `renewalFailure`. A lease TTL or launcher deadline
 *   observed as passed erases the same way; every such lapse is reported once by the next
 *   `takeWarnings()`.
 * - `onEvent` reports renewed / renewal-late / renewal-failed / erased for logging: ids and
 *   codes, never secrets or handles.
 *
 * ## Arrival
 * The daemon sets a lease's expiry from the start of a slow acquire, so its answer can come
 * with the expiry near or past. `admitLease` / `admitActivation` (what the tools call; `hold*`
 * take a credential as it is) judge it first (`arrival` in cadence.ts): expiry passed →
 * `LeaseLapsedError` (portreeve_lease_lapsed, retryable), nothing held or renewed; less left
 * than `arrivalNeed` (the observed daemon delay and a second, at least the renewal margin) →
 * renewed at once, and held only once that renewal landed, else `LeaseLapsedError` with its
 * failure; otherwise held. The TTL is judged from when the acquire was sent. A lease refused
 * here is told by that error, never again as a lapse warning.
 *
 * ## Custody window
 * Default 10 min from acquisition; `extendActivation` and `renewLauncherNow`
 * with minutes set it to acquisition + minutes (10–60), only lengthening (a repeat reports
 * `changed: false`). Anything outside 10–60 throws `CustodyLimitError`. At custody expiry
 * (timer at the instant, and checked on every access) the credentials are erased and
 * renewals stop, so silence never renews forever.
 *
 * ## Erasure
 * Call `settleLease`, `settleActivationLeases(activationId, stillLeasedLeaseIds)` or
 * `settleLauncher` after the daemon accepted confirm / skip / abandon / complete (a failed
 * daemon call erases nothing). A renewal racing settlement never brings a secret back.
 * `close()` (SIGINT / SIGTERM / stdin EOF) aborts in-flight renewals, clears every timer and
 * erases everything; afterwards every call throws `CustodyClosedError` (settle* return
 * quietly). JS strings cannot be zeroed: erasure drops every reference.
 *
 * ## Scrubbing
 * Every secret handed over is first recorded as keyed hashes of its 12-character windows
 * (fragments.ts); `scrub(text)` replaces any such fragment in outgoing text, also split by
 * spaces or punctuation, with `[redacted]`. The hashes outlive erasure (the process must
 * still recognise what it once held) and die with the process; they give no secret back.
 *
 * ## Errors
 * All extend `CustodyError` { code, retryable, message, details } so the catalogue can turn
 * them into result envelopes: `CredentialUnavailableError` (portreeve_credential_unavailable,
 * optional `renewalFailure`), `CustodyLimitError` (portreeve_invalid_input),
 * `CustodyClosedError`, `HandleCollisionError`, `RenewalFailedError`, and for recorded
 * failures `RenewalTimeoutError` / `InvalidRenewalError`. Messages never contain secrets.
 *
 * Time comes from an injectable `Clock`; `FakeClock` and `FakeRenewers`
 * (tests/support/) run the whole schedule in milliseconds in tests.
 *
 * @module
 */

export { type Clock, realClock } from "./clock.ts";
export {
  arrival,
  arrivalNeed,
  extendedCustody,
  lateAfter,
  MINUTE_MS,
  RENEW_CEILING_MS,
  renewalMargin,
  type RenewalTiming,
  renewDelay,
} from "./cadence.ts";
export {
  CredentialUnavailableError,
  CustodyClosedError,
  CustodyError,
  CustodyLimitError,
  HandleCollisionError,
  InvalidRenewalError,
  LeaseLapsedError,
  RenewalFailedError,
  RenewalTimeoutError,
} from "./errors.ts";
export { HANDLE_PATTERN, isHandle } from "./handle.ts";
export { CredentialFragments, FRAGMENT_LENGTH, REDACTED } from "./fragments.ts";
export { Custody } from "./vault.ts";
export type * from "./group.ts";
