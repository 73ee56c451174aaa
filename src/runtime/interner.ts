// One stored copy of strings that many cached objects repeat. V8 keeps a single copy of a JSON string
// value only up to 10 characters; longer ones (node names) get their own copy in every parsed object.

export class Interner {
  private readonly strings = new Map<string, string>();

  /** `max` bounds the table: when full it starts over, so a cluster whose names churn cannot grow it. */
  constructor(private readonly max: number) {}

  /** The first copy seen of `s` (equal to `s`). */
  intern = (s: string): string => {
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    if (this.strings.size >= this.max) this.strings.clear();
    this.strings.set(s, s);
    return s;
  };

  get size(): number {
    return this.strings.size;
  }
}
