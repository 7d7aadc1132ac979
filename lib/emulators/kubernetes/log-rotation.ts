/**
 * A container's log files as the kubelet keeps them (containerLogMaxSize, 10Mi by default): lines
 * go to the current file, and once it has reached the size the next line starts a new current file.
 * On a node the full one is renamed and compressed (up to containerLogMaxFiles), but the log API
 * serves only the current file, so nothing here keeps the rotated ones: a read that starts after a
 * rotation has lost what they held. A follow that is open goes on into the new file, as the
 * kubelet's reopens it; that part is LogBuffer's, which hands every line to its followers.
 *
 * The kubelet looks every 10 s (containerLogMonitorInterval), so on a node a file passes the size
 * by what came in that time; here it rotates at the first line after the size is reached, and a
 * log that stops growing (an exited container) is never rotated, as the kubelet rotates only
 * running containers' logs.
 */
export class RotatingLogFile<Line> {
  private lines: Line[] = [];
  private bytes = 0;
  private rotated = 0;

  constructor(
    private readonly maxBytes: number,
    /** A line's size in the file on the node (its CRI form, not only the text). */
    private readonly sizeOf: (line: Line) => number,
  ) {}

  /** The current file's lines, oldest first: all that a read of the log can see. */
  get current(): readonly Line[] {
    return this.lines;
  }

  /** How many files have been rotated away so far. */
  get rotations(): number {
    return this.rotated;
  }

  append(line: Line): void {
    if (this.bytes >= this.maxBytes) {
      this.lines = [];
      this.bytes = 0;
      this.rotated += 1;
    }
    this.lines.push(line);
    this.bytes += this.sizeOf(line);
  }
}
