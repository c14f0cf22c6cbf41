/**
 * Server-Sent Events, parsed as the HTML standard says (the parts a client needs), from
 * text arriving in chunks of any size (a chunk may end in the middle of a line, or
 * between a CR and its LF).
 */

/** One event of a session's stream. */
export interface ServerEvent {
  /** `session`, `move` or `gone` (the session expired); `message` when the server names none. */
  event: string;
  /** The event's data: JSON for every event of this service (see {@link eventJson}). */
  data: string;
  /** The event's id: the session version it brings the client to. */
  id: string | undefined;
}

/** The data of an event, parsed. */
export function eventJson<T = unknown>(event: ServerEvent): T {
  return JSON.parse(event.data) as T;
}

/**
 * A stream parser: `push` text as it arrives, get the events it completes. A blank line
 * ends an event; `data` lines are joined with newlines; lines starting with `:` are
 * comments (keep-alives); an event without data is not dispatched, but its `id` still
 * counts as the last event id (the standard's rule). `retry` is the reconnection delay
 * the server asked for, in milliseconds.
 */
export class SseParser {
  /** The id of the last event, kept across a reconnection as the standard says: give it to the next connection's parser. */
  lastEventId: string | undefined;
  retry: number | undefined;
  private buffer = "";
  private data: string[] = [];
  private event = "";
  private pendingCr = false;

  constructor(lastEventId?: string) {
    this.lastEventId = lastEventId;
  }

  push(text: string): ServerEvent[] {
    const events: ServerEvent[] = [];
    if (this.pendingCr && text.startsWith("\n")) text = text.slice(1); // the LF of a CRLF cut in two
    this.pendingCr = false;
    this.buffer += text;
    for (;;) {
      const end = this.buffer.search(/\r\n|\r|\n/);
      if (end < 0) break;
      const line = this.buffer.slice(0, end);
      let skip = 1;
      if (this.buffer[end] === "\r") {
        if (end + 1 === this.buffer.length) this.pendingCr = true;
        else if (this.buffer[end + 1] === "\n") skip = 2;
      }
      this.buffer = this.buffer.slice(end + skip);
      const event = this.line(line);
      if (event !== undefined) events.push(event);
    }
    return events;
  }

  private line(line: string): ServerEvent | undefined {
    if (line === "") {
      const event =
        this.data.length > 0
          ? { event: this.event || "message", data: this.data.join("\n"), id: this.lastEventId }
          : undefined;
      this.data = [];
      this.event = "";
      return event;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "data") this.data.push(value);
    else if (name === "event") this.event = value;
    else if (name === "id" && !value.includes("\0")) this.lastEventId = value;
    else if (name === "retry" && /^\d+$/.test(value)) this.retry = Number(value);
    return undefined;
  }
}
