/**
 * The service's errors as exceptions: one class per error code (as the Python client's
 * majlis_client.errors).
 *
 * Every error the service answers is RFC 9457 problem details (`application/problem+json`:
 * `type`, `title`, `status`, `detail`, `instance`, `code` and the error's details as
 * further members) with a 4xx (or 5xx) status; a server set to the deprecated legacy
 * format answers `{"error": {"code", "message", "details"}}`, read the same way.
 * {@link errorFromResponse} turns either into the class of its code ({@link ERROR_CLASSES});
 * a code this client does not know yet gets the class of its HTTP status
 * ({@link STATUS_CLASSES}), so `instanceof Conflict` still catches a new 409.
 */

import type { components } from "./schema.js";

type Action = components["schemas"]["GameAction"];
type Job = components["schemas"]["Job"];

/** Base of every error this client throws. */
export class MajlisError extends Error {
  override name = "MajlisError";
}

/** The service could not be reached, or the connection broke (no HTTP answer). */
export class TransportError extends MajlisError {
  override name = "TransportError";
}

/** A job, or the turn of a seat, did not come within the time given. */
export class WaitTimeout extends MajlisError {
  override name = "WaitTimeout";
}

/** A job ended `failed`; `job` is its last status (`job.error` says why, `job.problem` too). */
export class JobFailed extends MajlisError {
  override name = "JobFailed";
  readonly job: Job;

  constructor(job: Job) {
    super(`job ${job.id} failed: ${job.error ?? "no reason given"}`);
    this.job = job;
  }
}

/** An error answered by the service: `status`, `code`, `message`, `details`, `headers`. */
export class ApiError extends MajlisError {
  override name = "ApiError";
  readonly status: number;
  readonly code: string;
  /** The problem's `detail` (in the request's language), else its `title`. */
  readonly detail: string;
  /** The problem's members other than the standard ones (`field`, `rule`, `version`, ...). */
  readonly details: Record<string, unknown>;
  /** The answer's headers, names in lower case. */
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    detail: string,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(`${status} ${code}: ${detail}`);
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.details = details;
    this.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  }

  /** The `X-Request-ID` of the answer: every server log line of the request has it. */
  get requestId(): string | undefined {
    return this.headers["x-request-id"];
  }

  /** The field at fault (invalid_setup, invalid_state, invalid_action, wrong_seat). */
  get field(): string | undefined {
    return stringOr(this.details["field"]);
  }

  /** invalid_request: each field of the wrong shape -> what is wrong with it. */
  get fields(): Record<string, string> | undefined {
    return this.details["fields"] as Record<string, string> | undefined;
  }

  /** invalid_setup of `players`: the counts the game allows. */
  get allowed(): unknown[] | undefined {
    return this.details["allowed"] as unknown[] | undefined;
  }

  /** The session's current version (stale_version, seat_claimed). */
  get version(): number | undefined {
    const version = this.details["version"];
    return typeof version === "number" ? version : undefined;
  }

  /** Seconds to wait before trying again: the `Retry-After` header, else the details'. */
  get retryAfter(): number | undefined {
    const raw = this.headers["retry-after"] ?? this.details["retry_after"];
    if (raw === undefined || raw === null) return undefined;
    const seconds = Number(raw);
    return Number.isFinite(seconds) ? seconds : undefined;
  }
}

function stringOr(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

// ------------------------------------------------------------------- by HTTP status

/** 400: the request could not be read. */
export class BadRequest extends ApiError {
  override name = "BadRequest";
}
/** 401: no or unknown seat token; no or unknown API key. */
export class Unauthorized extends ApiError {
  override name = "Unauthorized";
}
/** 403: the credentials do not allow this (a token acting for another seat). */
export class Forbidden extends ApiError {
  override name = "Forbidden";
}
/** 404: no such game, session, job or path. */
export class NotFound extends ApiError {
  override name = "NotFound";
}
/** 405. */
export class MethodNotAllowed extends ApiError {
  override name = "MethodNotAllowed";
}
/** 409: the session moved on meanwhile. */
export class Conflict extends ApiError {
  override name = "Conflict";
}
/** 413: a body over the server's limit. */
export class RequestTooLarge extends ApiError {
  override name = "RequestTooLarge";
}
/** 414. */
export class UriTooLong extends ApiError {
  override name = "UriTooLong";
}
/** 415: the body is not sent as JSON. */
export class UnsupportedMediaType extends ApiError {
  override name = "UnsupportedMediaType";
}
/** 417. */
export class ExpectationFailed extends ApiError {
  override name = "ExpectationFailed";
}
/** 422: read, but not acceptable (shape, setup, state, action or a rule). */
export class Unprocessable extends ApiError {
  override name = "Unprocessable";
}
/** 429: over the API key's rate limit; `retryAfter` gives the seconds to wait. */
export class RateLimited extends ApiError {
  override name = "RateLimited";
}
/** 431. */
export class HeadersTooLarge extends ApiError {
  override name = "HeadersTooLarge";
}
/** 5xx. */
export class ServerError extends ApiError {
  override name = "ServerError";
}

// ------------------------------------------------------------------- by code

/** 400 invalid_json: the body is not valid JSON (`details.reason` says where). */
export class InvalidJson extends BadRequest {
  override name = "InvalidJson";
}
/** 400 malformed_request: the body could not be read (bad framing). */
export class MalformedRequest extends BadRequest {
  override name = "MalformedRequest";
}
/** 404 unknown_game. */
export class UnknownGame extends NotFound {
  override name = "UnknownGame";
}
/** 404 unknown_session: no such session, or it expired. */
export class UnknownSession extends NotFound {
  override name = "UnknownSession";
}
/** 404 unknown_job: no such job, or it expired. */
export class UnknownJob extends NotFound {
  override name = "UnknownJob";
}
/** 404 rules_not_installed: the server has no copy of the game's rules reference. */
export class RulesNotInstalled extends NotFound {
  override name = "RulesNotInstalled";
}
/** 404 unknown_review: no finished review of that scope in the session (yet). */
export class UnknownReview extends NotFound {
  override name = "UnknownReview";
}
/** 403 review_refused: during the match a token reviews only its own seat. */
export class ReviewRefused extends Forbidden {
  override name = "ReviewRefused";
}

/**
 * 409 stale_version: the session is at `version`, not the `expected_version` sent.
 * Reload the session (its legal actions may have changed) and decide again;
 * `SessionClient.play` does so.
 */
export class StaleVersion extends Conflict {
  override name = "StaleVersion";
}

/** 409 seat_claimed: the seat was claimed back by its person; the bot's move was not applied. */
export class SeatClaimed extends Conflict {
  override name = "SeatClaimed";
}
/** 409 session_ended: the service ended the session (its people were all silent too long); it takes no more moves. */
export class SessionEnded extends Conflict {
  override name = "SessionEnded";
}
/** 422 invalid_request: a field of the wrong shape (`fields` maps each to what is wrong). */
export class InvalidRequest extends Unprocessable {
  override name = "InvalidRequest";
}
/** 422 invalid_setup: players, options, dealer or deck not acceptable (`field`, `allowed`). */
export class InvalidSetup extends Unprocessable {
  override name = "InvalidSetup";
}
/** 422 invalid_state: not a consistent state, view or layout of the game (`field`). */
export class InvalidState extends Unprocessable {
  override name = "InvalidState";
}
/** 422 invalid_action: an action the game cannot read (`field`). */
export class InvalidAction extends Unprocessable {
  override name = "InvalidAction";
}
/** 422 invalid_callback: a `callback_url` the service may not call (`field`). */
export class InvalidCallback extends Unprocessable {
  override name = "InvalidCallback";
}
/** 422 too_many_decisions: a review longer than the server searches (`details.decisions`). */
export class TooManyDecisions extends Unprocessable {
  override name = "TooManyDecisions";
}

/** 422 illegal_move: well formed but against a rule (`rule`, `reason`, `legalActions`, `toAct`). */
export class IllegalMove extends Unprocessable {
  override name = "IllegalMove";

  /** The rule id in the game's rules reference (docs/rules/<game>.md), e.g. "R7". */
  get rule(): string | undefined {
    return stringOr(this.details["rule"]);
  }

  /** Why, in words a player understands. */
  get reason(): string | undefined {
    return stringOr(this.details["reason"]);
  }

  /** What the seat to act may do instead. */
  get legalActions(): Action[] | undefined {
    return this.details["legal_actions"] as Action[] | undefined;
  }

  /** The seat to act. */
  get toAct(): number | null | undefined {
    return this.details["to_act"] as number | null | undefined;
  }
}

/** 422 not_your_turn: a seat other than the one to act. */
export class NotYourTurn extends IllegalMove {
  override name = "NotYourTurn";
}
/** 422 wrong_seat: a seat not at the table, or a view of another seat. */
export class WrongSeat extends Unprocessable {
  override name = "WrongSeat";
}
/** 429 busy: the server runs as many searches as it allows (a hint); retry after `retryAfter`. */
export class Busy extends RateLimited {
  override name = "Busy";
}
/** 429 quota_exceeded: this client holds as many sessions, streams, spectators, jobs or hints as allowed (`retryAfter`; details name the `quota` and `limit`). */
export class QuotaExceeded extends RateLimited {
  override name = "QuotaExceeded";
}
/** 503 streams_full: the stream server holds as many streams as it allows (`retryAfter`). */
export class StreamsFull extends ServerError {
  override name = "StreamsFull";
}
/** 507 storage_full: the server's store is nearly full and takes no new sessions or jobs for now (`retryAfter`). */
export class StorageFull extends ServerError {
  override name = "StorageFull";
}
/** 500 internal_error (a bug of the server: it logs the request id). */
export class InternalError extends ServerError {
  override name = "InternalError";
}
/** 501 not_implemented. */
export class ServerNotImplemented extends ServerError {
  override name = "ServerNotImplemented";
}
/** 503 unavailable: a dependency (Redis, the workers) is down; retry later. */
export class Unavailable extends ServerError {
  override name = "Unavailable";
}

type ErrorClass = new (
  status: number,
  code: string,
  detail: string,
  details?: Record<string, unknown>,
  headers?: Record<string, string>,
) => ApiError;

/** The class of each error code of the service. */
export const ERROR_CLASSES: Readonly<Record<string, ErrorClass>> = {
  malformed_json: InvalidJson, // the name docs/api.md used before invalid_json
  invalid_json: InvalidJson,
  malformed_request: MalformedRequest,
  unauthorized: Unauthorized,
  forbidden: Forbidden,
  unknown_game: UnknownGame,
  unknown_session: UnknownSession,
  unknown_job: UnknownJob,
  rules_not_installed: RulesNotInstalled,
  unknown_review: UnknownReview,
  review_refused: ReviewRefused,
  not_found: NotFound,
  method_not_allowed: MethodNotAllowed,
  stale_version: StaleVersion,
  seat_claimed: SeatClaimed,
  session_ended: SessionEnded,
  conflict: Conflict,
  request_too_large: RequestTooLarge,
  uri_too_long: UriTooLong,
  unsupported_media_type: UnsupportedMediaType,
  expectation_failed: ExpectationFailed,
  invalid_request: InvalidRequest,
  invalid_setup: InvalidSetup,
  invalid_state: InvalidState,
  invalid_action: InvalidAction,
  illegal_move: IllegalMove,
  not_your_turn: NotYourTurn,
  wrong_seat: WrongSeat,
  invalid_callback: InvalidCallback,
  too_many_decisions: TooManyDecisions,
  rate_limited: RateLimited,
  busy: Busy,
  quota_exceeded: QuotaExceeded,
  streams_full: StreamsFull,
  storage_full: StorageFull,
  request_header_fields_too_large: HeadersTooLarge,
  internal_error: InternalError,
  not_implemented: ServerNotImplemented,
  unavailable: Unavailable,
};

/** The class of an HTTP status, for a code this client does not know. */
export const STATUS_CLASSES: Readonly<Record<number, ErrorClass>> = {
  400: BadRequest,
  401: Unauthorized,
  403: Forbidden,
  404: NotFound,
  405: MethodNotAllowed,
  409: Conflict,
  413: RequestTooLarge,
  414: UriTooLong,
  415: UnsupportedMediaType,
  417: ExpectationFailed,
  422: Unprocessable,
  429: RateLimited,
  431: HeadersTooLarge,
};

/** The class of `code`; for a code unknown here, the class of `status`. */
export function errorClass(status: number, code: string): ErrorClass {
  const known = Object.hasOwn(ERROR_CLASSES, code) ? ERROR_CLASSES[code] : undefined;
  if (known !== undefined) return known;
  if (status >= 500) return ServerError;
  return STATUS_CLASSES[status] ?? ApiError;
}

/** The members of a problem that are not the error's details. */
const PROBLEM_MEMBERS = new Set(["type", "title", "status", "detail", "instance", "code"]);

/** `[code, message, details]` of an error body: problem details or the legacy shape; null if neither. */
export function readError(body: string): [string, string, Record<string, unknown>] | null {
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isObject(document)) return null;
  const legacy = document["error"];
  if (isObject(legacy) && !("code" in document)) {
    if (typeof legacy["code"] !== "string") return null;
    const details = isObject(legacy["details"]) ? legacy["details"] : {};
    return [legacy["code"], String(legacy["message"] ?? ""), { ...details }];
  }
  if (typeof document["code"] !== "string") return null;
  const details: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(document)) {
    if (!PROBLEM_MEMBERS.has(name)) details[name] = value;
  }
  const nested = details["details"]; // details named like a standard member
  if (isObject(nested)) {
    delete details["details"];
    Object.assign(details, nested);
  }
  const message = String(document["detail"] ?? document["title"] ?? "");
  return [document["code"], message, details];
}

/**
 * The exception for an error answer. A body without an error shape (a proxy's HTML page,
 * say) still gives the class of its status, with code `http_<status>`.
 */
export function errorFromResponse(status: number, body: string, headers: Record<string, string> = {}): ApiError {
  const read = readError(body);
  if (read === null) {
    const message = body.trim().slice(0, 500) || `HTTP ${status}`;
    return new (errorClass(status, ""))(status, `http_${status}`, message, {}, headers);
  }
  const [code, message, details] = read;
  return new (errorClass(status, code))(status, code, message, details, headers);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
