// A large service implementation is composed from one module per section of its proto (each typed as a `Pick` of the
// full ServiceImpl); this puts them together. The result's type names the full ServiceImpl, so a missing RPC fails to
// compile; an RPC two sections both define would silently keep the later one, so that stops the start instead.

/** The type holding every section's members: what the caller's declared ServiceImpl is checked against. */
type AllOf<Sections extends object[]> = (
  Sections[number] extends infer S
    ? S extends object
      ? (section: S) => void
      : never
    : never
) extends (section: infer All) => void
  ? All
  : never;

/** Merges section handler objects into one service implementation; throws when two sections define one method. */
export function composeSections<Sections extends object[]>(...sections: Sections): AllOf<Sections> {
  const impl: Record<string, unknown> = {};
  for (const section of sections) {
    for (const [name, handler] of Object.entries(section)) {
      if (Object.hasOwn(impl, name)) throw new Error(`${name} is defined by two sections of the service`);
      impl[name] = handler;
    }
  }
  return impl as AllOf<Sections>;
}
