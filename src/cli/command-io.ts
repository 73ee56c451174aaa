/** An error the CLI reports as one line on stderr with the given exit code (2 = bad input). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Output sinks, injectable so commands are testable without spawning a process. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** What `-f -` reads; process.stdin when absent. */
  stdin?: AsyncIterable<Uint8Array>;
}

export const processIO: CliIO = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

export type Command = (args: string[], io: CliIO) => Promise<number>;
