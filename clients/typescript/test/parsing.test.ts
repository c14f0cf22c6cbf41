/**
 * The parts that need no server: problem details (and the legacy error shape) read into
 * the class of their code, and the Server-Sent Events parser fed in awkward chunks.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  ApiError,
  Busy,
  Conflict,
  IllegalMove,
  InvalidJson,
  NotFound,
  NotYourTurn,
  RateLimited,
  ServerError,
  SseParser,
  StaleVersion,
  Unprocessable,
  errorFromResponse,
} from "../src/index.js";

describe("problem details", () => {
  test("an illegal move carries its rule, reason and legal actions", () => {
    const body = JSON.stringify({
      type: "/problems/illegal_move",
      title: "Illegal move",
      status: 422,
      detail: "declare first",
      instance: "urn:majlis:request:abc",
      code: "illegal_move",
      rule: "R7",
      reason: "declarations come before the first card",
      legal_actions: [{ type: "pass" }],
      to_act: 1,
    });
    const error = errorFromResponse(422, body, { "X-Request-ID": "abc" });
    assert.ok(error instanceof IllegalMove && error instanceof Unprocessable && error instanceof ApiError);
    assert.equal(error.name, "IllegalMove");
    assert.deepEqual(
      [error.code, error.detail, error.rule, error.reason, error.legalActions, error.toAct, error.requestId],
      ["illegal_move", "declare first", "R7", "declarations come before the first card", [{ type: "pass" }], 1, "abc"],
    );
    assert.ok(!("type" in error.details) && !("instance" in error.details));
  });

  test("a stale version carries the session's version; a code subclass keeps its status class", () => {
    const stale = errorFromResponse(409, '{"code": "stale_version", "status": 409, "detail": "moved on", "version": 8}');
    assert.ok(stale instanceof StaleVersion && stale instanceof Conflict);
    assert.equal(stale.version, 8);
    assert.ok(errorFromResponse(422, '{"code": "not_your_turn"}') instanceof NotYourTurn);
  });

  test("Retry-After comes from the header, else from the details", () => {
    const busy = errorFromResponse(429, '{"code": "busy", "retry_after": 3}', { "Retry-After": "2" });
    assert.ok(busy instanceof Busy && busy instanceof RateLimited);
    assert.equal(busy.retryAfter, 2);
    assert.equal(errorFromResponse(429, '{"code": "rate_limited", "retry_after": 3}').retryAfter, 3);
  });

  test("the legacy shape, an unknown code and a body that is no problem at all", () => {
    const legacy = errorFromResponse(400, '{"error": {"code": "invalid_json", "message": "bad", "details": {"reason": "x"}}}');
    assert.ok(legacy instanceof InvalidJson);
    assert.deepEqual([legacy.detail, legacy.details], ["bad", { reason: "x" }]);
    const newer = errorFromResponse(404, '{"code": "no_such_table", "detail": "gone"}');
    assert.ok(newer instanceof NotFound);
    assert.equal(newer.code, "no_such_table");
    const proxy = errorFromResponse(502, "<html>Bad gateway</html>");
    assert.ok(proxy instanceof ServerError);
    assert.deepEqual([proxy.code, proxy.detail], ["http_502", "<html>Bad gateway</html>"]);
  });
});

describe("Server-Sent Events", () => {
  const stream = 'retry: 1000\n\n: keep-alive\n\nid: 3\nevent: move\ndata: {"a":\ndata: 1}\n\nid: 4\n\nevent: session\r\ndata: x\r\n\r\n';

  function parse(chunks: string[]): { events: unknown[]; parser: SseParser } {
    const parser = new SseParser();
    const events = chunks.flatMap((chunk) => parser.push(chunk));
    return { events, parser };
  }

  const expected = [
    { event: "move", data: '{"a":\n1}', id: "3" },
    { event: "session", data: "x", id: "4" }, // id 4 came without data: it still counts
  ];

  test("whole, and cut at every position (a CRLF cut in two included)", () => {
    const whole = parse([stream]);
    assert.deepEqual(whole.events, expected);
    assert.deepEqual([whole.parser.lastEventId, whole.parser.retry], ["4", 1000]);
    for (let cut = 0; cut <= stream.length; cut++) {
      assert.deepEqual(parse([stream.slice(0, cut), stream.slice(cut)]).events, expected, `cut at ${cut}`);
    }
    assert.deepEqual(parse([...stream]).events, expected, "one character at a time");
  });

  test("an event not ended by a blank line is not dispatched", () => {
    assert.deepEqual(parse(["id: 9\ndata: half"]).events, []);
  });
});
