// Shows a block of lines that changes over time: redrawn in place on a terminal, appended as a new
// snapshot (only when its body changed) when the output is a file or a pipe.

export interface ScreenOptions {
  write: (text: string) => void;
  tty: boolean;
  /** Terminal width; longer lines are cut so the in-place redraw can count lines. */
  columns?: number;
}

export class LiveBlock {
  private drawnLines = 0;
  private lastBody: string | undefined;

  constructor(private readonly o: ScreenOptions) {}

  /** `header` may change every time (elapsed time); in append mode only a changed `body` prints. */
  show(header: string, body: string[]): void {
    const bodyText = body.join('\n');
    if (!this.o.tty) {
      if (bodyText === this.lastBody) return;
      this.lastBody = bodyText;
      this.o.write(`${header}\n${bodyText}\n\n`);
      return;
    }
    const width = this.o.columns && this.o.columns > 1 ? this.o.columns - 1 : undefined;
    const lines = [header, ...body].map((l) => (width !== undefined && l.length > width ? l.slice(0, width) : l));
    // Cursor up to the first line of the previous drawing, clear to the end of the screen, redraw.
    const rewind = this.drawnLines > 0 ? `\x1b[${this.drawnLines}F\x1b[J` : '';
    this.o.write(`${rewind}${lines.join('\n')}\n`);
    this.drawnLines = lines.length;
  }

  /** Lines written after this stay below the block. */
  detach(): void {
    this.drawnLines = 0;
    this.lastBody = undefined;
  }
}
