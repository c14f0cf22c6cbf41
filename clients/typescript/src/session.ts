/**
 * A session as one token holder plays it: a seat (or a spectator) of a match the service
 * keeps (as the Python client's `majlis_client.SessionClient`).
 *
 *     const created = await client.createSession("ronda", { seats: ["human", { type: "bot", level: "easy" }] });
 *     const me = client.session(created.id!, created.tokens![0]!);
 *     let state = await me.waitForTurn();
 *     state = await me.play((s) => me.legalActions(s)[0]!.action!);
 *
 * Moves carry `expected_version`: by default the version of the last answer this handle
 * saw, so a move decided on an old view is refused (409, {@link StaleVersion}) rather
 * than applied to a table that changed. {@link SessionClient.play} decides again from
 * the fresh session when that happens.
 */

import type { Answer, Client } from "./client.js";
import {
  MAX_POLL_INTERVAL_MS,
  accepted,
  anySignal,
  describe,
  headerRecord,
  pollHints,
  seg,
  sleep,
} from "./client.js";
import { ApiError, StaleVersion, TransportError, WaitTimeout, errorFromResponse } from "./errors.js";
import { SseParser, type ServerEvent } from "./sse.js";
import type {
  Action,
  Hint,
  Job,
  JobRef,
  LabelledAction,
  Level,
  Review,
  Session,
  SessionBotMoveRequest,
  SessionHintRequest,
  SessionLog,
  SessionReviewRequest,
} from "./types.js";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/** Whether the token's seat is to act in `state`. */
export function isMyTurn(state: Session): boolean {
  return state.seat !== undefined && state.seat !== null && state.to_act === state.seat;
}

export interface EventsOptions {
  /** Resume after this event id (a session version); default: the last one this handle saw. */
  lastEventId?: string;
  /** Reconnect when the stream ends or breaks, resuming with `Last-Event-ID`. Default true. */
  reconnect?: boolean;
  /** Connection attempts in a row that may fail before the error is thrown. Default 5. */
  maxRetries?: number;
  /**
   * The wait before reconnecting, in ms, until the server says otherwise (its `retry:`
   * field); doubled after each failed attempt in a row. Default 1000.
   */
  retryMs?: number;
  /**
   * No byte for this long (ms) counts as a dropped connection: the server sends a
   * keep-alive every 10 s (MAJLIS_STREAM_HEARTBEAT). Default 30 000.
   */
  idleTimeoutMs?: number;
  /** Ends the stream (the iterator returns). Breaking out of a `for await` does too. */
  signal?: AbortSignal;
}

export class SessionClient {
  readonly client: Client;
  readonly id: string;
  readonly token: string;
  /** The last session answer seen. */
  last: Session | undefined;
  /** The id of the last event of the stream seen, to resume it. */
  lastEventId: string | undefined;
  /** Connections the event stream made (the first and each reconnect). */
  connections = 0;

  constructor(client: Client, sessionId: string, token: string) {
    this.client = client;
    this.id = sessionId;
    this.token = token;
  }

  get version(): number | undefined {
    return this.last?.version;
  }

  private path(tail = ""): string {
    return `/v1/sessions/${seg(this.id)}${tail}`;
  }

  private call<T>(method: string, tail: string, body?: unknown): Promise<Answer<T>> {
    return this.client.call<T>(method, this.path(tail), { body, token: this.token });
  }

  private seen(state: Session): Session {
    this.last = state;
    return state;
  }

  // ------------------------------------------------------------ reading

  async get(): Promise<Session> {
    return this.seen((await this.call<Session>("GET", "")).data);
  }

  /** Every move so far, with the cards this token could not see as "hidden". */
  async log(): Promise<SessionLog> {
    return (await this.call<SessionLog>("GET", "/log")).data;
  }

  /**
   * The token's seat's legal actions in `state` (a session answer: the server sends them
   * with each), each `{action, label}`. Empty when the seat is not to act.
   */
  legalActions(state: Session): LabelledAction[] {
    return state.legal_actions ?? [];
  }

  /** The session once the token's seat is to act, or the match is over (polled). */
  async waitForTurn(options: { timeoutMs?: number } = {}): Promise<Session> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    let interval = this.client.pollIntervalMs;
    for (;;) {
      const state = await this.get();
      if (isMyTurn(state) || state.finished) return state;
      if (Date.now() + interval > deadline) {
        throw new WaitTimeout(`seat ${state.seat} not to act after ${timeoutMs} ms (seat ${state.to_act} is)`);
      }
      await sleep(interval);
      interval = Math.min(interval * 1.5, MAX_POLL_INTERVAL_MS);
    }
  }

  // ------------------------------------------------------------ acting

  /**
   * Play `action` for the token's seat, if the session is still at `expectedVersion`
   * (default: the version of the last answer seen). StaleVersion (409, its `version` the
   * session's) if it moved on; IllegalMove (422: `rule`, `reason`, `legalActions`) if a
   * rule forbids it.
   */
  async move(action: Action, options: { expectedVersion?: number; seat?: number } = {}): Promise<Session> {
    const expected = options.expectedVersion ?? (this.last ?? (await this.get())).version;
    const body: Record<string, unknown> = { action, expected_version: expected };
    if (options.seat !== undefined) body["seat"] = options.seat;
    return this.seen((await this.call<Session>("POST", "/moves", body)).data);
  }

  /**
   * Decide with `choose` on the session as last seen and play it; when the session moved
   * on meanwhile (409), reload it and decide again, up to `attempts` times.
   */
  async play(choose: (state: Session) => Action | Promise<Action>, options: { attempts?: number } = {}): Promise<Session> {
    const attempts = options.attempts ?? 3;
    let state = this.last ?? (await this.get());
    for (let attempt = 1; ; attempt++) {
      const action = await choose(state);
      try {
        return await this.move(action, state.version === undefined ? {} : { expectedVersion: state.version });
      } catch (error) {
        if (!(error instanceof StaleVersion) || attempt >= attempts) throw error;
        state = await this.get();
      }
    }
  }

  /**
   * Let a bot play `seat` (default the token's own; another must be a bot seat). A job
   * (202) is polled until the move is applied; the answer then is the session as it is
   * after it, with the bot's `action` and `events` (`stats`: own seat only).
   */
  async botMove(request: SessionBotMoveRequest = {}, wait: { timeoutMs?: number } = {}): Promise<Session> {
    const answer = await this.call<Session & { job?: JobRef }>("POST", "/bot-move", request);
    if (answer.status !== 202) return this.seen(answer.data);
    const job: Job = await this.client.waitJob(accepted(answer), {
      timeoutMs: wait.timeoutMs ?? 60_000,
      ...pollHints(answer),
    });
    const after = await this.get();
    return this.seen({
      ...after,
      ...(job.action !== undefined ? { action: job.action } : {}),
      ...(job.events !== undefined ? { events: job.events } : {}),
      ...(job.stats !== undefined ? { stats: job.stats } : {}),
    });
  }

  /** Hand the token's seat to a bot (at `level`) until {@link claim}. */
  async leave(level?: Level): Promise<Session> {
    return this.seen((await this.call<Session>("POST", "/leave", level ? { level } : {})).data);
  }

  /** Take the seat back from the bot. */
  async claim(): Promise<Session> {
    return this.seen((await this.call<Session>("POST", "/claim")).data);
  }

  /** The token's seat's legal actions ranked by a short search (it must be to act); Busy (429) while the server's searches are taken. */
  async hint(request: SessionHintRequest = {}): Promise<Hint> {
    return (await this.call<Hint>("POST", "/hint", request)).data;
  }

  /** A new spectator token: it sees the public view only (`client.session(id, token)`). */
  async addSpectator(): Promise<string> {
    const answer = await this.call<{ token?: string }>("POST", "/spectators");
    if (answer.data.token === undefined) throw new TypeError("the answer has no token");
    return answer.data.token;
  }

  // ------------------------------------------------------------ review

  /** Start a review of the token's seat's decisions (another seat, or all seats, only once the match is over). */
  async startReview(request: SessionReviewRequest = {}): Promise<JobRef> {
    const answer = await this.call<{ job: JobRef }>("POST", "/review", request);
    return accepted(answer);
  }

  /** The finished review kept with the session (UnknownReview until there is one). */
  async review(options: { seat?: number; allSeats?: boolean } = {}): Promise<Review> {
    const query = new URLSearchParams();
    if (options.allSeats) query.set("all_seats", "true");
    if (options.seat !== undefined) query.set("seat", String(options.seat));
    const tail = "/review" + (query.toString() ? `?${query}` : "");
    return (await this.call<{ review: Review }>("GET", tail)).data.review;
  }

  /** Start a review and wait for it: the review as its job ends. */
  async runReview(request: SessionReviewRequest = {}, wait: { timeoutMs?: number } = {}): Promise<Review> {
    const job = await this.client.waitJob(await this.startReview(request), { timeoutMs: wait.timeoutMs ?? 300_000 });
    return job.review ?? {};
  }

  // ------------------------------------------------------------ events

  /**
   * The session's live events (Server-Sent Events), as this token may see them: a
   * `session` event at connection (version, whose turn, seats), then a `move` event per
   * move (the log entry as the token sees it) and a `session` event per hand-over; each
   * event's `id` is the version it brings the session to. From after `lastEventId`
   * (default: the last one this handle saw).
   *
   * When the stream ends or breaks (or stays silent past `idleTimeoutMs`), it reconnects
   * after the server's `retry` delay with `Last-Event-ID`: the server sends every move
   * since, from the session's log, so none is lost or repeated. A `gone` event (the session
   * expired) ends the iterator; so do `signal` and breaking out of the loop. An error
   * answer (401, 404, 422) is thrown at once; a 5xx or a failed connection after
   * `maxRetries` attempts in a row.
   *
   * The API answers the events request with a 307 to its stream server (another port,
   * so another origin): fetch would drop the `Authorization` header on that redirect, so
   * this follows it itself and sends the token again (never from https to http).
   */
  async *events(options: EventsOptions = {}): AsyncGenerator<ServerEvent, void, undefined> {
    const reconnect = options.reconnect ?? true;
    const maxRetries = options.maxRetries ?? 5;
    const idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
    let resume = options.lastEventId ?? this.lastEventId;
    let failures = 0;
    let retryMs = options.retryMs ?? 1000;
    for (;;) {
      if (options.signal?.aborted) return;
      const connection = new AbortController();
      const parser = new SseParser(resume);
      try {
        const signal = anySignal(options.signal ? [options.signal, connection.signal] : [connection.signal]);
        const response = await this.openStream(resume, signal);
        failures = 0;
        for await (const event of readEvents(response, parser, idleTimeoutMs, connection)) {
          if (event.id !== undefined) resume = this.lastEventId = event.id;
          yield event;
          if (event.event === "gone") return;
        }
      } catch (error) {
        if (options.signal?.aborted) return;
        const permanent = error instanceof ApiError && error.status < 500 && error.status !== 429;
        if (permanent || !reconnect || ++failures > maxRetries) throw error;
      } finally {
        connection.abort(); // a consumer that stops reading closes the connection
      }
      if (parser.lastEventId !== undefined) resume = this.lastEventId = parser.lastEventId;
      retryMs = parser.retry ?? retryMs;
      if (!reconnect) return;
      await sleep(retryMs * Math.max(1, 2 ** (failures - 1)));
    }
  }

  /** The stream's answer, its redirect followed with the token (see {@link events}). */
  private async openStream(resume: string | undefined, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (resume !== undefined) headers["Last-Event-ID"] = resume;
    let url = this.client.url(this.path("/events"));
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      this.connections += hop === 0 ? 1 : 0;
      const response = await this.client.send("GET", url, {
        token: this.token,
        headers,
        signal,
        redirect: "manual",
        timeout: false,
      });
      if (!REDIRECTS.has(response.status)) {
        if (response.body === null) throw new TransportError(`GET ${url}: an event stream without a body`);
        return response;
      }
      const location = response.headers.get("location");
      await response.body?.cancel().catch(() => undefined);
      if (!location) throw new TransportError(`GET ${url}: a ${response.status} without a Location`);
      const next = new URL(location, url);
      if (new URL(url).protocol === "https:" && next.protocol !== "https:") {
        throw new TransportError(`GET ${url}: refusing to follow a redirect to ${next.origin} (not https) with the seat token`);
      }
      url = next.href;
    }
    throw new TransportError(`GET ${url}: more than ${MAX_REDIRECTS} redirects`);
  }
}

/**
 * The events of one streamed answer as they arrive. No data for `idleTimeoutMs` aborts
 * the connection (a TransportError, so the caller reconnects).
 */
async function* readEvents(
  response: Response,
  parser: SseParser,
  idleTimeoutMs: number,
  connection: AbortController,
): AsyncGenerator<ServerEvent, void, undefined> {
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("text/event-stream")) {
    throw errorFromResponse(response.status, await response.text(), headerRecord(response.headers));
  }
  const body = response.body;
  if (body === null) return;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let idle = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      idle = true;
      connection.abort();
    }, idleTimeoutMs);
    (timer as { unref?: () => void }).unref?.(); // Node: an abandoned stream does not keep the process alive
  };
  try {
    arm();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        const why = idle ? `no data for ${idleTimeoutMs} ms` : describe(error);
        throw new TransportError(`the event stream broke: ${why}`, { cause: error });
      }
      if (chunk.done) return;
      arm();
      yield* parser.push(decoder.decode(chunk.value, { stream: true }));
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}
