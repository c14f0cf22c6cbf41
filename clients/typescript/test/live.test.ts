/**
 * The client against the whole system as `make run` starts it (`python -m service.run`:
 * embedded Redis, a Celery worker, gunicorn, the stream server; see ./service.ts): a whole
 * Ronda match with a bot seat played by the workers and the human seat played through the
 * client, its event stream dropped and resumed twice without an event lost or repeated;
 * the typed errors (an illegal move, a stale version, unknown session, bad token); a bot
 * search run as a job (202) and polled.
 */

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import {
  Busy,
  Client,
  IllegalMove,
  NotFound,
  StaleVersion,
  Unauthorized,
  UnknownSession,
  eventJson,
  isMyTurn,
  type Action,
  type Hint,
  type LabelledAction,
  type LogEntry,
  type ServerEvent,
  type Session,
  type SessionClient,
  type SessionEventData,
} from "../src/index.js";
import { startService, type Service } from "./service.js";

const MATCH_TIMEOUT_MS = 240_000; // a bound far above what a match takes (about 20 s here)
const BOT = { type: "bot", level: "easy" } as const;
const SHORT_MATCH = { players: 2, options: { target_score: 11 } } as const; // docs/rules/ronda.md, R32

let service: Service;

before(async () => {
  service = await startService();
});

after(async () => {
  await service?.stop();
});

/** A seeded generator of numbers in [0, 1) (mulberry32): the same choices each run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A legal action, at random; a challenge (R13: it may end the match at once) only when nothing else is legal. */
function choose(legal: LabelledAction[], next: () => number): Action {
  const calm = legal.filter((item) => item.action?.type !== "challenge");
  const pool = calm.length > 0 ? calm : legal;
  const picked = pool[Math.floor(next() * pool.length)]?.action;
  assert.ok(picked, "the seat to act has a legal action");
  return picked;
}

/**
 * The test's fetch: the real one, recording each request (URL, the token and
 * Last-Event-ID sent) and able to cut the open event stream's connection, as a network
 * drop would.
 */
class Wire {
  requests: { url: string; status: number; authorization: string | null; lastEventId: string | null }[] = [];
  drops = 0;
  private open: AbortController | undefined;

  readonly fetch: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const cut = new AbortController();
    init?.signal?.addEventListener("abort", () => cut.abort(init.signal?.reason), { once: true });
    const response = await fetch(input, { ...init, signal: cut.signal });
    const url = String(input);
    this.requests.push({
      url,
      status: response.status,
      authorization: headers.get("authorization"),
      lastEventId: headers.get("last-event-id"),
    });
    if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) this.open = cut;
    return response;
  };

  /** Cut the open stream's connection (the client sees the body break). */
  drop(): void {
    assert.ok(this.open, "an event stream is open");
    this.open.abort(new Error("the test cut the connection"));
    this.open = undefined;
    this.drops += 1;
  }
}

/** Until `predicate` holds of the session (polled), within `timeoutMs`. */
async function until(seat: SessionClient, predicate: (state: Session) => boolean, timeoutMs = 30_000): Promise<Session> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await seat.get();
    if (predicate(state)) return state;
    assert.ok(Date.now() < deadline, `the session did not get there in ${timeoutMs} ms: ${JSON.stringify(state.to_act)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a whole Ronda match with a bot seat", () => {
  test("the human seat plays through the client to the match's end; the stream, dropped twice, loses and repeats nothing", async () => {
    const client = new Client(service.url);
    const created = await client.createSession("ronda", { ...SHORT_MATCH, seats: ["human", BOT], seed: 11 });
    assert.ok(created.id && created.tokens?.length === 2, "an id and a token per seat");
    assert.deepEqual(
      created.seats?.map((seat) => seat.type),
      ["human", "bot"],
    );
    const me = client.session(created.id, created.tokens[0]!);

    const wire = new Wire();
    const watcher = new Client(service.url, { fetch: wire.fetch }).session(created.id, created.tokens[0]!);
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), MATCH_TIMEOUT_MS);
    const events: ServerEvent[] = [];
    const isEnd = (event: ServerEvent): boolean => eventJson<{ to_act: number | null }>(event).to_act === null;

    async function watch(): Promise<void> {
      // 1: read; cut the connection after the third move (the client reconnects by itself);
      //    stop reading after the eighth (the iterator closes the connection)
      for await (const event of watcher.events({ signal: stop.signal })) {
        events.push(event);
        if (isEnd(event)) return;
        const moves = events.filter((e) => e.event === "move").length;
        if (moves === 3 && wire.drops === 0) wire.drop();
        if (moves >= 8) break;
      }
      // 2: away while the match goes on, then resume from the last event seen
      const away = Number(watcher.lastEventId);
      await until(watcher, (state) => state.finished === true || (state.version ?? 0) >= away + 3);
      for await (const event of watcher.events({ signal: stop.signal })) {
        events.push(event);
        if (isEnd(event)) return;
      }
    }

    async function play(): Promise<{ state: Session; moves: number; hint: Hint | undefined }> {
      const next = random(11);
      let moves = 0;
      let hint: Hint | undefined;
      let state = await me.waitForTurn({ timeoutMs: 60_000 });
      while (!state.finished) {
        assert.ok(!stop.signal.aborted, `the match is not over after ${MATCH_TIMEOUT_MS} ms`);
        if (moves === 2 && hint === undefined) hint = await hintOnce(me);
        state = await me.play((s) => choose(me.legalActions(s), next));
        moves += 1;
        assert.ok(Array.isArray(state.events), "a move answers its events");
        state = await me.waitForTurn({ timeoutMs: 60_000 });
      }
      return { state, moves, hint };
    }

    const [, played] = await Promise.all([watch(), play()]).finally(() => clearTimeout(timer));
    const { state, moves, hint } = played;

    // the match ended, both seats played: the human's through the client, the bot's on the workers
    assert.equal(state.finished, true);
    assert.equal(state.to_act, null);
    assert.deepEqual(me.legalActions(state), []);
    const log = await me.log();
    const entries = log.entries ?? [];
    assert.deepEqual(
      entries.map((entry) => entry.n),
      Array.from({ length: state.version ?? 0 }, (_, i) => i + 1),
    );
    assert.deepEqual(new Set(entries.map((entry) => entry.seat)), new Set([0, 1]));
    assert.ok(moves >= 10, `the human seat played ${moves} moves: ${JSON.stringify(entries.map((e) => [e.seat, e.action]))}`);
    const scores = (state.view as { scores?: number[] } | undefined)?.scores ?? [];
    assert.ok(Math.max(...scores) >= SHORT_MATCH.options.target_score, `a side reached the target: ${scores}`);

    // the hint ranked the seat's legal actions
    assert.ok(hint?.actions && hint.actions.length > 0, "the hint ranks the legal actions");

    // the stream: a session event at connection, then every move once, in order, as in the log
    const ids = events.map((event) => Number(event.id));
    assert.ok(
      ids.every((id, i) => i === 0 || id > ids[i - 1]!),
      `event ids strictly increase: ${ids}`,
    );
    const first = eventJson<SessionEventData>(events[0]!);
    assert.equal(events[0]!.event, "session");
    const moveEvents = events.filter((event) => event.event === "move");
    assert.deepEqual(
      moveEvents.map((event) => Number(event.id)),
      Array.from({ length: (state.version ?? 0) - first.version }, (_, i) => first.version + i + 1),
      "every move after the first event, none lost, none repeated",
    );
    const byVersion = new Map(entries.map((entry) => [entry.version, entry]));
    for (const event of moveEvents) {
      assert.deepEqual(eventJson<LogEntry>(event), byVersion.get(Number(event.id)), `move ${event.id} as the log has it`);
    }

    // two reconnects: after the cut (by the client itself) and after the pause (a new
    // events() on the same handle); each asked the API, was sent to the stream server by
    // a 307 and sent it the token again, resuming with Last-Event-ID
    assert.equal(wire.drops, 1);
    assert.equal(watcher.connections, 3);
    const api = new URL(service.url).port;
    const streams = wire.requests.filter((r) => new URL(r.url).pathname.endsWith("/events"));
    const toApi = streams.filter((r) => new URL(r.url).port === api);
    const toStreams = streams.filter((r) => new URL(r.url).port !== api);
    assert.deepEqual(
      toApi.map((r) => r.status),
      [307, 307, 307],
    );
    assert.deepEqual(
      toStreams.map((r) => r.status),
      [200, 200, 200],
    );
    assert.ok(toStreams.every((r) => r.authorization === `Bearer ${created.tokens![0]}`));
    assert.equal(toStreams[0]!.lastEventId, null);
    assert.ok(toStreams.slice(1).every((r) => r.lastEventId !== null), "each reconnect resumes");
  });
});

/** A hint for the seat to act; a busy server (429) is asked again after its Retry-After. */
async function hintOnce(seat: SessionClient): Promise<Hint> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await seat.hint({ level: "normal", budget: { iterations: 50, ms: null } });
    } catch (error) {
      if (!(error instanceof Busy) || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, (error.retryAfter ?? 1) * 1000));
    }
  }
}

describe("typed errors", () => {
  test("an illegal move: IllegalMove with the rule, the reason and the legal actions (stateless and in a session)", async () => {
    const client = new Client(service.url);
    const state = await client.deal("ronda", { players: 2, seed: 42 });
    const moves = await client.legalMoves("ronda", { state });
    assert.ok(moves.actions?.some((action) => action.type === "pass"), "the declaration round: pass is legal");
    const hand = (state as { hands: string[][] }).hands[moves.to_act!]!;
    const play = { type: "play", card: hand[0] } as Action; // before the declarations end
    await assert.rejects(client.move("ronda", state, moves.to_act!, play), (error: unknown) => {
      assert.ok(error instanceof IllegalMove, String(error));
      assert.equal(error.status, 422);
      assert.equal(error.code, "illegal_move");
      assert.match(error.rule ?? "", /^R\d+/);
      assert.ok(error.reason, "a reason in words");
      assert.deepEqual(error.legalActions, moves.actions);
      return true;
    });

    const created = await client.createSession("ronda", { players: 2, seed: 42 });
    const seats = client.seats(created);
    const mover = isMyTurn(await seats[0]!.get()) ? seats[0]! : seats[1]!;
    await assert.rejects(mover.move(play), (error: unknown) => {
      assert.ok(error instanceof IllegalMove && error.rule && error.legalActions?.length, String(error));
      return true;
    });
  });

  test("a stale version: StaleVersion carrying the session's version; play() decides again", async () => {
    const client = new Client(service.url);
    const created = await client.createSession("ronda", { players: 2, seed: 5, options: { challenges: false } });
    const [first, second] = client.seats(created) as [SessionClient, SessionClient];
    const mover = isMyTurn(await first.get()) ? first : second;
    const waiter = mover === first ? second : first;
    const before = await waiter.get();
    await mover.play((s) => mover.legalActions(s)[0]!.action!);
    await assert.rejects(waiter.move({ type: "pass" }, { expectedVersion: before.version! }), (error: unknown) => {
      assert.ok(error instanceof StaleVersion, String(error));
      assert.equal(error.status, 409);
      assert.equal(error.version, before.version! + 1);
      return true;
    });

    waiter.last = before; // decided on an old answer: the first try is refused with 409
    const seen: Session[] = [];
    const played = await waiter.play((state) => {
      seen.push(state);
      const legal = waiter.legalActions(state); // none in the old answer: the waiter was not to act
      return legal[0]?.action ?? { type: "pass" };
    });
    assert.deepEqual(
      seen.map((s) => s.version),
      [before.version, before.version! + 1],
    );
    assert.ok(isMyTurn(seen[1]!));
    assert.equal(played.version, before.version! + 2);
    assert.equal(waiter.version, played.version, "the handle tracks the last version");
  });

  test("an unknown session and a wrong token", async () => {
    const client = new Client(service.url);
    await assert.rejects(client.session("0".repeat(32), "nope").get(), (error: unknown) => {
      assert.ok(error instanceof UnknownSession && error instanceof NotFound, String(error));
      assert.ok(error.requestId, "the answer's X-Request-ID");
      return true;
    });
    const created = await client.createSession("ronda", { players: 2, seed: 1 });
    await assert.rejects(client.session(created.id!, "not-a-token").get(), Unauthorized);
    const events = client.session(created.id!, "not-a-token").events();
    await assert.rejects(events.next(), Unauthorized, "the stream's 401 (after its 307) is thrown, not retried");
  });
});

describe("jobs", () => {
  test("a bot search run as a job: 202 with Location and Retry-After, polled until done", async () => {
    const client = new Client(service.url);
    const state = await client.deal("ronda", { players: 2, seed: 42 });
    const legal = await client.legalMoves("ronda", { state });
    const seat = legal.to_act!;
    const view = await client.view("ronda", state, seat);
    const answer = await client.call<{ job: { url: string } }>("POST", "/v1/games/ronda/bot-move", {
      body: { view, seat, seed: 1, async: true },
    });
    assert.equal(answer.status, 202);
    assert.equal(answer.headers["location"], answer.data.job.url);
    assert.match(answer.headers["retry-after"] ?? "", /^\d+$/);

    const bot = await client.botMove("ronda", { view, seat, seed: 1, async: true });
    assert.equal(bot.job?.status, "done");
    assert.ok(legal.actions?.some((action) => JSON.stringify(action) === JSON.stringify(bot.action)));
  });
});

describe("the README", () => {
  test("its TypeScript example is examples/readme.ts, and runs as written", async () => {
    const repository = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", ".."); // from dist/test
    const readme = await readFile(join(repository, "README.md"), "utf8");
    const example = await readFile(new URL("../../examples/readme.ts", import.meta.url), "utf8");
    const blocks = [...readme.matchAll(/```typescript\n(.*?)```/gs)].map((match) => match[1]);
    assert.deepEqual(blocks, [example], "README.md's typescript block is examples/readme.ts");

    const compiled = fileURLToPath(new URL("../examples/readme.js", import.meta.url));
    const env = { ...process.env, BASE: service.url };
    const { stdout } = await promisify(execFile)(process.execPath, [compiled], { env, timeout: 120_000 });
    const lines = stdout.trim().split("\n");
    assert.match(stdout, /R8 /, "the illegal move's rule");
    assert.match(lines.at(-1) ?? "", /^\[ \d+, \d+ \] \d+ moves, \d+ streamed$/);
  });
});
