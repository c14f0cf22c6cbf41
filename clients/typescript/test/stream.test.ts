/**
 * The event stream's connection handling over real sockets, against two small HTTP
 * servers standing for the API (which answers 307) and its stream server: the token sent
 * again after the redirect, a stream the server ends or that goes silent resumed with
 * Last-Event-ID, a refusal thrown at once, a failing server retried a bounded number of
 * times. (The live tests do the same against the real service; here each case is forced.)
 */

import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, test } from "node:test";

import { Client, ServerError, TransportError, Unauthorized, type ServerEvent } from "../src/index.js";

type Script = (request: IncomingMessage, response: ServerResponse, connection: number) => void;

let api: Server;
let streams: Server;
let script: Script;
let asked: { authorization: string | undefined; lastEventId: string | undefined }[];

async function listen(server: Server): Promise<number> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

before(async () => {
  streams = createServer((request, response) => {
    asked.push({
      authorization: request.headers.authorization,
      lastEventId: request.headers["last-event-id"] as string | undefined,
    });
    script(request, response, asked.length);
  });
  const streamPort = await listen(streams);
  api = createServer((request, response) => {
    response.writeHead(307, { Location: `http://127.0.0.1:${streamPort}${request.url}` }).end();
  });
  await listen(api);
});

after(() => {
  streams.closeAllConnections();
  api.closeAllConnections();
  streams.close();
  api.close();
});

beforeEach(() => {
  asked = [];
});

function seat(): ReturnType<Client["session"]> {
  const port = (api.address() as AddressInfo).port;
  return new Client(`http://127.0.0.1:${port}`).session("s1", "seat-token");
}

function open(response: ServerResponse): void {
  response.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  response.write("retry: 20\n\n");
}

function move(version: number): string {
  return `id: ${version}\nevent: move\ndata: {"version": ${version}}\n\n`;
}

describe("the event stream's connections", () => {
  test("after the 307 the token is sent again; an ended and a silent stream are resumed with Last-Event-ID", async () => {
    script = (_request, response, connection) => {
      open(response);
      if (connection === 1) response.end(move(1) + move(2)); // the server ends the stream
      else if (connection === 2) response.write(move(3)); // then goes silent: the client's idle timeout
      else response.end('event: gone\ndata: {"id": "s1"}\n\n');
    };
    const handle = seat();
    const events: ServerEvent[] = [];
    for await (const event of handle.events({ idleTimeoutMs: 300 })) events.push(event);
    assert.deepEqual(
      events.map((event) => [event.event, event.id]),
      [
        ["move", "1"],
        ["move", "2"],
        ["move", "3"],
        ["gone", "3"],
      ],
    );
    assert.deepEqual(asked, [
      { authorization: "Bearer seat-token", lastEventId: undefined },
      { authorization: "Bearer seat-token", lastEventId: "2" },
      { authorization: "Bearer seat-token", lastEventId: "3" },
    ]);
    assert.equal(handle.lastEventId, "3");
    assert.equal(handle.connections, 3);
  });

  test("a refusal (401) is thrown at once, not retried", async () => {
    script = (_request, response) => {
      const body = JSON.stringify({ type: "/problems/unauthorized", status: 401, code: "unauthorized", detail: "no" });
      response.writeHead(401, { "Content-Type": "application/problem+json" }).end(body);
    };
    await assert.rejects(seat().events().next(), Unauthorized);
    assert.equal(asked.length, 1);
  });

  test("a failing server (503) is tried maxRetries more times, then its error is thrown", async () => {
    script = (_request, response) => {
      response.writeHead(503, { "Content-Type": "application/problem+json" });
      response.end(JSON.stringify({ status: 503, code: "unavailable", detail: "Redis is down" }));
    };
    await assert.rejects(seat().events({ maxRetries: 2, retryMs: 10 }).next(), ServerError);
    assert.equal(asked.length, 3);
  });

  test("breaking out of the loop closes the connection; the next events() resumes", async () => {
    let closed = 0;
    script = (request, response, connection) => {
      open(response);
      request.on("close", () => (closed += 1));
      response.write(connection === 1 ? move(1) + move(2) : move(3));
    };
    const handle = seat();
    for await (const event of handle.events()) {
      if (event.id === "2") break;
    }
    const resumed = handle.events();
    const [next] = await Promise.all([resumed.next(), waitFor(() => closed === 1)]);
    assert.equal((next.value as ServerEvent).id, "3");
    await resumed.return(undefined);
    await waitFor(() => closed === 2);
    assert.deepEqual(
      asked.map((request) => request.lastEventId),
      [undefined, "2"],
    );
  });

  test("a stream server that cannot be reached: TransportError after the retries", async () => {
    const gone = createServer();
    const port = await listen(gone);
    gone.close();
    const handle = new Client(`http://127.0.0.1:${port}`).session("s1", "seat-token");
    await assert.rejects(handle.events({ maxRetries: 1, retryMs: 10 }).next(), TransportError);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    assert.ok(Date.now() < deadline, "the condition did not come");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
