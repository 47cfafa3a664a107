/** One dispatched server-sent event. */
export interface SseMessage {
  /** The stream's last event id when this message was dispatched (ids carry over, as in the standard). */
  id: string | undefined;
  /** The `event:` field; `message` when absent, as in the HTML standard. */
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
}

/**
 * An incremental parser for `text/event-stream` (the HTML standard's "event stream interpretation"),
 * fed decoded text in arbitrary chunks. Lines end in LF, CRLF or CR (a CR at the end of one chunk and an
 * LF at the start of the next are one line end). Comment lines (`: ping`) are ignored. A message is
 * dispatched on a blank line only, so a message cut off by a dropped connection is never half-delivered:
 * {@link SseParser.end} discards it and a resume replays it whole.
 */
export class SseParser {
  private buffer = "";
  private skipLeadingLf = false;
  private sawFirstChunk = false;
  private data: string[] = [];
  private event = "";
  private idBuffer: string | undefined;
  /**
   * The last event id of the stream: set from `id:` when a blank line dispatches, even one without data,
   * never from a message that was cut off.
   */
  lastEventId: string | undefined;
  /** The last `retry:` value (milliseconds), when the server sent one. */
  retry: number | undefined;

  /** Parses a chunk and returns the messages it completed. */
  push(chunk: string): SseMessage[] {
    if (!this.sawFirstChunk && chunk !== "") {
      this.sawFirstChunk = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    if (this.skipLeadingLf && chunk.startsWith("\n")) chunk = chunk.slice(1);
    if (chunk !== "") this.skipLeadingLf = false;
    this.buffer += chunk;
    const messages: SseMessage[] = [];
    let start = 0;
    for (;;) {
      const cr = this.buffer.indexOf("\r", start);
      const lf = this.buffer.indexOf("\n", start);
      if (cr < 0 && lf < 0) break;
      const end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      const line = this.buffer.slice(start, end);
      if (this.buffer[end] === "\r") {
        if (end + 1 < this.buffer.length) {
          start = this.buffer[end + 1] === "\n" ? end + 2 : end + 1;
        } else {
          // The LF of a CRLF may be in the next chunk.
          start = end + 1;
          this.skipLeadingLf = true;
        }
      } else {
        start = end + 1;
      }
      const message = this.line(line);
      if (message) messages.push(message);
    }
    this.buffer = this.buffer.slice(start);
    return messages;
  }

  /** Ends the stream: an unterminated line or message is dropped, as the standard says. */
  end(): void {
    this.buffer = "";
    this.idBuffer = this.lastEventId;
    this.reset();
  }

  private reset(): void {
    this.data = [];
    this.event = "";
  }

  private line(line: string): SseMessage | undefined {
    if (line === "") {
      this.lastEventId = this.idBuffer;
      if (this.data.length === 0) {
        this.reset();
        return undefined;
      }
      const message: SseMessage = {
        id: this.lastEventId,
        event: this.event || "message",
        data: this.data.join("\n"),
      };
      this.reset();
      return message;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.data.push(value);
        break;
      case "event":
        this.event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.idBuffer = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      // Unknown fields are ignored.
    }
    return undefined;
  }
}
