/**
 * The `data` of Server-Sent Events, as they arrive in byte chunks of any size: events end at a blank
 * line, several `data:` lines of one event join with newlines, other fields and comments are ignored.
 * UTF-8 split across chunks is decoded correctly.
 */
export class SseDataParser {
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private data: string[] = [];

  /** The data of every event a chunk completes. */
  push(chunk: Uint8Array): string[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    return this.drain();
  }

  /** The data of a last event the stream did not terminate. */
  end(): string[] {
    this.buffer += `${this.decoder.decode()}\n\n`;
    return this.drain();
  }

  private drain(): string[] {
    const events: string[] = [];
    let start = 0;
    for (let newline = this.buffer.indexOf('\n'); newline >= 0; newline = this.buffer.indexOf('\n', start)) {
      let line = this.buffer.slice(start, newline);
      start = newline + 1;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') {
        if (this.data.length > 0) events.push(this.data.join('\n'));
        this.data = [];
      } else if (line.startsWith('data:')) {
        this.data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }
}
