/* Server-Sent Events read with fetch(): unlike EventSource, fetch can send the seat token
   (an Authorization header). Parses the text/event-stream format (fields id, event, data,
   retry; ":" comment lines) as browsers do. Plain JavaScript, no library. */
"use strict";

class StreamClosed extends Error {}

/* Reads the stream at `url` until it ends. `listener.opened()` is called once the answer
   is a 200 text/event-stream; `listener.event({type, id, data})` once per event;
   `listener.retry(ms)` when the server sets its reconnection delay. Rejects with
   StreamClosed when it could not be opened (`opened` was never called), with the network
   error when it broke after; resolves when the server ended it. */
async function readEvents(url, headers, listener, signal) {
  let answer;
  try {
    answer = await fetch(url, { headers: { Accept: "text/event-stream", ...headers }, cache: "no-store", signal });
  } catch (error) {
    throw new StreamClosed(error.message);
  }
  if (!answer.ok) {
    const body = await answer.json().catch(() => ({}));
    throw new StreamClosed(readError(answer.status, body, answer.statusText).message);
  }
  const type = answer.headers.get("Content-Type") || "none";
  if (!type.startsWith("text/event-stream")) throw new StreamClosed(`not an event stream: ${type}`);
  listener.opened();
  const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new EventParser(listener);
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    parser.feed(value);
  }
}

/* The event-stream format, fed chunk by chunk (a chunk may end mid-line). */
class EventParser {
  constructor(listener) {
    this.listener = listener;
    this.buffer = "";
    this.id = "";
    this.reset();
  }

  reset() { this.type = "message"; this.data = []; }

  feed(text) {
    const lines = (this.buffer + text).split(/\r\n|\r|\n/);
    this.buffer = lines.pop(); // the unfinished line
    for (const line of lines) this.line(line);
  }

  line(line) {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return; // a comment: the server's keep-alive
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.type = value;
    else if (field === "id" && !value.includes("\0")) this.id = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.listener.retry(Number(value));
  }

  dispatch() {
    if (this.data.length) this.listener.event({ type: this.type, id: this.id, data: this.data.join("\n") });
    this.reset();
  }
}
