// How a step of the front (or the admission's send) ends a call with a catalogue error: it throws a Refusal, and the
// call answers it in the shape of its route family (./front-call.ts). Not an Error: no stack is captured for an
// answer as ordinary as a 404 or a 429.
import type { ErrorToRender } from "../errors/index.js";
import type { FieldViolation } from "../runtime/wire/index.js";

/** What a step throws when the call ends in a catalogue error (or a validation failure naming fields). */
export class Refusal {
  private constructor(
    readonly error: ErrorToRender | undefined,
    readonly violations: readonly FieldViolation[] | undefined,
  ) {}
  static of(error: ErrorToRender): Refusal {
    return new Refusal(error, undefined);
  }
  /** A validation failure, answered with the family's validation code and a bounded summary of the fields. */
  static invalid(violations: readonly FieldViolation[]): Refusal {
    return new Refusal(undefined, violations);
  }
}
