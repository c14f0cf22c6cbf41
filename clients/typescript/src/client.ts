/**
 * The client of the stateless API, jobs, and the door to sessions (as the Python
 * client's `majlis_client.Client`).
 *
 *     const client = new Client("http://127.0.0.1:8000");
 *     const state = await client.deal("ronda", { seed: 42 });
 *     const moves = await client.legalMoves("ronda", { state });
 *
 * Every method answers the typed result of its endpoint (./types.ts, generated from the
 * service's OpenAPI document) or throws the exception of the service's error code
 * (./errors.ts). Bot moves and reviews the server runs as a job (202, with `Location`
 * and `Retry-After`) are polled until they end. No dependencies: the platform's `fetch`.
 */

import { ApiError, JobFailed, RateLimited, TransportError, WaitTimeout, errorFromResponse } from "./errors.js";
import { SessionClient } from "./session.js";
import type {
  Action,
  BotMove,
  BotMoveRequest,
  DealRequest,
  Game,
  GameReviewRequest,
  GameState,
  GameView,
  Hint,
  HintRequest,
  Job,
  JobRef,
  LegalMoves,
  MoveResult,
  Review,
  Score,
  SessionCreateRequest,
  SessionCreated,
} from "./types.js";

export const DEFAULT_URL = "http://127.0.0.1:8000";
/** Milliseconds between two looks at a job (or a turn), at the slowest. */
export const MAX_POLL_INTERVAL_MS = 500;

export interface ClientOptions {
  /** Sent as `X-API-Key` (when the server has keys on). */
  apiKey?: string;
  /** Sent as `Accept-Language`: labels, reasons and messages in that language (en, ar, es, ne). */
  language?: string;
  /** Bounds each request (not an event stream), in milliseconds. Default 30 000. */
  timeoutMs?: number;
  /** The first wait between two looks at a job or a turn, growing to 500 ms. Default 50. */
  pollIntervalMs?: number;
  /** Another fetch (a test's, or one with a proxy agent). Default: the global fetch. */
  fetch?: typeof fetch;
}

/** An answer: its status, headers (names in lower case) and JSON body. */
export interface Answer<T> {
  status: number;
  headers: Record<string, string>;
  data: T;
}

/** One request's parts, for {@link Client.send}. */
export interface RequestParts {
  body?: unknown;
  /** A session's seat (or spectator) token: `Authorization: Bearer <token>`. */
  token?: string | undefined;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Default "follow"; the event stream follows its 307 itself ("manual"). */
  redirect?: "follow" | "manual";
  /** false: no time limit (an event stream); default: the client's `timeoutMs`. */
  timeout?: false;
}

export class Client {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly language: string | undefined;
  readonly timeoutMs: number;
  readonly pollIntervalMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(baseUrl: string = DEFAULT_URL, options: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.language = options.language;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 50;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  // ------------------------------------------------------------ plumbing

  /** The absolute URL of `path` (a URL already absolute is kept). */
  url(path: string): string {
    return path.includes("://") ? path : this.baseUrl + path;
  }

  headers(token?: string, extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.apiKey) headers["X-API-Key"] = this.apiKey;
    if (this.language) headers["Accept-Language"] = this.language;
    if (token) headers["Authorization"] = `Bearer ${token}`;
    return { ...headers, ...extra };
  }

  /** One request; an error status (4xx, 5xx) throws its exception (errors.ERROR_CLASSES). */
  async send(method: string, path: string, parts: RequestParts = {}): Promise<Response> {
    const url = this.url(path);
    const extra: Record<string, string> = { ...parts.headers };
    let payload: string | undefined;
    if (parts.body !== undefined) {
      payload = JSON.stringify(parts.body);
      extra["Content-Type"] = "application/json";
    }
    const signals = [parts.signal, parts.timeout === false ? undefined : AbortSignal.timeout(this.timeoutMs)];
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method,
        headers: this.headers(parts.token, extra),
        body: payload ?? null,
        redirect: parts.redirect ?? "follow",
        signal: anySignal(signals.filter((s): s is AbortSignal => s !== undefined)),
      });
    } catch (error) {
      if (parts.signal?.aborted) throw error; // the caller's own abort: not a transport failure
      throw new TransportError(`${method} ${url}: ${describe(error)}`, { cause: error });
    }
    if (response.status >= 400) {
      const text = await response.text().catch(() => "");
      throw errorFromResponse(response.status, text, headerRecord(response.headers));
    }
    return response;
  }

  /** One request and its JSON answer. */
  async call<T>(method: string, path: string, parts: RequestParts = {}): Promise<Answer<T>> {
    const response = await this.send(method, path, parts);
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new TransportError(`${method} ${this.url(path)}: the answer broke: ${describe(error)}`, { cause: error });
    }
    const data = (text ? JSON.parse(text) : {}) as T;
    return { status: response.status, headers: headerRecord(response.headers), data };
  }

  // ------------------------------------------------------------ games

  async games(): Promise<Game[]> {
    return (await this.call<{ games?: Game[] }>("GET", "/v1/games")).data.games ?? [];
  }

  async game(game: string): Promise<Game> {
    return (await this.call<Game>("GET", `/v1/games/${seg(game)}`)).data;
  }

  /** The game's rules reference (Markdown). */
  async rules(game: string): Promise<string> {
    const response = await this.send("GET", `/v1/games/${seg(game)}/rules`, { headers: { Accept: "text/markdown" } });
    return response.text();
  }

  // ------------------------------------------------------------ stateless play

  /** A new state: from `seed` (or a seed the server draws), an explicit `deck` (top first) or a `layout`. */
  async deal(game: string, request: DealRequest = {}): Promise<GameState> {
    const answer = await this.call<{ state: GameState }>("POST", `/v1/games/${seg(game)}/deals`, { body: request });
    return answer.data.state;
  }

  /** The seat to act's legal actions (from a view: only when its seat is to act). */
  async legalMoves(game: string, from: { state?: GameState; view?: GameView }): Promise<LegalMoves> {
    return (await this.call<LegalMoves>("POST", `/v1/games/${seg(game)}/legal-moves`, { body: from })).data;
  }

  /** The next state and the move's events; IllegalMove (`rule`, `reason`, `legalActions`) when a rule forbids it. */
  async move(game: string, state: GameState, seat: number, action: Action): Promise<MoveResult> {
    const body = { state, seat, action };
    return (await this.call<MoveResult>("POST", `/v1/games/${seg(game)}/moves`, { body })).data;
  }

  async score(game: string, state: GameState): Promise<Score> {
    return (await this.call<Score>("POST", `/v1/games/${seg(game)}/score`, { body: { state } })).data;
  }

  /** What `seat` may see of `state`. */
  async view(game: string, state: GameState, seat: number): Promise<GameView> {
    const body = { state, seat };
    return (await this.call<{ view: GameView }>("POST", `/v1/games/${seg(game)}/view`, { body })).data.view;
  }

  // ------------------------------------------------------------ bots, hints, reviews

  /**
   * A bot's action for `request.seat`; a search the server runs as a job (202: a large
   * budget, `async`, or a busy server) is polled until done, up to `timeoutMs`.
   */
  async botMove(game: string, request: BotMoveRequest, wait: { timeoutMs?: number } = {}): Promise<BotMove> {
    const answer = await this.call<BotMove & { job?: JobRef }>("POST", `/v1/games/${seg(game)}/bot-move`, {
      body: request,
    });
    if (answer.status === 202) {
      const job = await this.waitJob(accepted(answer), { timeoutMs: wait.timeoutMs ?? 60_000, ...pollHints(answer) });
      return { action: job.action, stats: job.stats, job };
    }
    return { action: answer.data.action, stats: answer.data.stats, job: undefined };
  }

  /**
   * The legal actions of the seat (to act) ranked by a short search, and the easy policy's
   * choice; nothing is played. Busy (429, `retryAfter`) while the server's searches are taken.
   */
  async hint(game: string, request: HintRequest): Promise<Hint> {
    return (await this.call<Hint>("POST", `/v1/games/${seg(game)}/hint`, { body: request })).data;
  }

  /**
   * A review of `request.seat`'s decisions in a match given as its initial `state` and
   * every action from it on: each searched again on the workers (a job, polled).
   */
  async review(game: string, request: GameReviewRequest, wait: { timeoutMs?: number } = {}): Promise<Review> {
    const answer = await this.call<{ job: JobRef }>("POST", `/v1/games/${seg(game)}/review`, { body: request });
    const job = await this.waitJob(accepted(answer), { timeoutMs: wait.timeoutMs ?? 300_000, ...pollHints(answer) });
    return job.review ?? {};
  }

  // ------------------------------------------------------------ jobs

  /** A job's status: by its id, its URL, or its reference. */
  async job(job: Job | JobRef | string): Promise<Job> {
    return (await this.call<Job>("GET", jobPath(job))).data;
  }

  /**
   * The job once `done`; JobFailed if it failed, WaitTimeout after `timeoutMs`. The first
   * look waits for `retryAfterS` (the 202's `Retry-After`, capped at 500 ms: it is whole
   * seconds, and a search often ends sooner), then the looks come at growing intervals; a
   * 429 while polling waits its own `Retry-After`.
   */
  async waitJob(job: Job | JobRef | string, wait: { timeoutMs?: number; retryAfterS?: number } = {}): Promise<Job> {
    const timeoutMs = wait.timeoutMs ?? 60_000;
    const deadline = Date.now() + timeoutMs;
    let interval = this.pollIntervalMs;
    if (wait.retryAfterS !== undefined && wait.retryAfterS > 0) {
      await sleep(Math.min(wait.retryAfterS * 1000, MAX_POLL_INTERVAL_MS));
    }
    for (;;) {
      let current: Job | undefined;
      let pause = interval;
      try {
        current = await this.job(job);
      } catch (error) {
        if (!(error instanceof RateLimited)) throw error;
        pause = (error.retryAfter ?? 1) * 1000;
      }
      if (current?.status === "done") return current;
      if (current?.status === "failed") throw new JobFailed(current);
      if (Date.now() + pause > deadline) {
        throw new WaitTimeout(`job ${jobPath(job)} is still ${current?.status ?? "unknown"} after ${timeoutMs} ms`);
      }
      await sleep(pause);
      interval = Math.min(interval * 1.5, MAX_POLL_INTERVAL_MS);
    }
  }

  // ------------------------------------------------------------ sessions

  /**
   * A match kept by the service: its id and one secret token per seat (shown once).
   * `seats`: "human", "bot" or `{type: "bot", level}` each; `turn_timer`: a limit on each
   * move of a person, `{seconds, on_timeout: "move" | "seat", level}`; `callback_url`:
   * the server POSTs each change there, signed with the answer's `webhook_secret`.
   */
  async createSession(game: string, request: Omit<SessionCreateRequest, "game"> = {}): Promise<SessionCreated> {
    return (await this.call<SessionCreated>("POST", "/v1/sessions", { body: { ...request, game } })).data;
  }

  /** The session as the holder of `token` (a seat's, or a spectator's) plays it. */
  session(sessionId: string, token: string): SessionClient {
    return new SessionClient(this, sessionId, token);
  }

  /** One handle per seat of a session just created. */
  seats(created: SessionCreated): SessionClient[] {
    if (created.id === undefined) throw new TypeError("not a created session: no id");
    const id = created.id;
    return (created.tokens ?? []).map((token) => this.session(id, token));
  }

  // ------------------------------------------------------------ operations

  /** Whether the service and its dependencies (Redis, a worker) are up. */
  async ready(): Promise<boolean> {
    try {
      await this.send("GET", "/readyz");
      return true;
    } catch (error) {
      if (error instanceof ApiError || error instanceof TransportError) return false; // 503 or not reachable
      throw error;
    }
  }
}

/** A path segment, escaped. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name.toLowerCase()] = value;
  });
  return record;
}

/** The job of a 202 answer: at its `Location`, else the URL of its reference. */
export function accepted(answer: Answer<{ job?: JobRef }>): JobRef {
  const job = answer.data.job ?? {};
  const location = answer.headers["location"];
  return location ? { ...job, url: location } : job;
}

/** The polling hints of a 202: its `Retry-After`. */
export function pollHints(answer: Answer<unknown>): { retryAfterS?: number } {
  const seconds = Number(answer.headers["retry-after"]);
  return Number.isFinite(seconds) ? { retryAfterS: seconds } : {};
}

function jobPath(job: Job | JobRef | string): string {
  if (typeof job === "string") return job.includes("/") ? job : `/v1/jobs/${seg(job)}`;
  if (job.url) return job.url;
  if (job.id) return `/v1/jobs/${seg(job.id)}`;
  throw new TypeError("a job without id or url");
}

/** A signal aborted when any of `signals` is (AbortSignal.any is not in Node 18). */
export function anySignal(signals: AbortSignal[]): AbortSignal {
  if (signals.length === 1 && signals[0] !== undefined) return signals[0];
  const controller = new AbortController();
  for (const signal of signals) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

export function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.message}${cause}`;
  }
  return String(error);
}
