import { inspect } from "node:util";

/**
 * A secret value (an API key) that cannot leak by accident: it prints, logs and serialises as
 * `***`; only `reveal()` gives the value, and only the HTTP client calls it.
 */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  /** The real value, for the Authorization header only. */
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return "***";
  }
  toJSON(): string {
    return "***";
  }
  [inspect.custom](): string {
    return "Secret(***)";
  }
}
