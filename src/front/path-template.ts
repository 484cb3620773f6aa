// google.api.http path templates: "/v1/items/{id}" parsed once at start, matched segment by segment per request.
// Supports literal segments and single-segment variables ({field} or {field=*}), the subset our protos use;
// anything else stops the start so an unsupported template never silently mis-routes.

export type Segment = { literal: string } | { variable: string };

export interface PathTemplate {
  readonly source: string;
  readonly segments: readonly Segment[];
}

export function parsePathTemplate(source: string): PathTemplate {
  if (!source.startsWith("/")) throw new Error(`path template must start with "/": ${source}`);
  const segments = source
    .slice(1)
    .split("/")
    .map((part): Segment => {
      const variable = /^\{([a-z_][a-z0-9_]*)(?:=\*)?\}$/.exec(part);
      if (variable) return { variable: variable[1]! };
      if (/^[A-Za-z0-9._~-]+$/.test(part)) return { literal: part };
      throw new Error(`unsupported path template segment "${part}" in ${source}`);
    });
  return { source, segments };
}

/**
 * Matches already split, percent-decoded path segments; returns the bound variables, or undefined when the path
 * does not fit the template.
 */
export function matchPathTemplate(
  template: PathTemplate,
  parts: readonly string[],
): Record<string, string> | undefined {
  if (parts.length !== template.segments.length) return undefined;
  const bound: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const segment = template.segments[i]!;
    const part = parts[i]!;
    if ("literal" in segment) {
      if (segment.literal !== part) return undefined;
    } else {
      if (part === "") return undefined;
      bound[segment.variable] = part;
    }
  }
  return bound;
}

/** How many leading literal segments a path shares with a template; used to pick the family of an unknown path. */
export function sharedPrefixLength(template: PathTemplate, parts: readonly string[]): number {
  let shared = 0;
  for (let i = 0; i < Math.min(parts.length, template.segments.length); i++) {
    const segment = template.segments[i]!;
    if (!("literal" in segment) || segment.literal !== parts[i]) break;
    shared++;
  }
  return shared;
}

/** Splits a request path into percent-decoded segments; undefined when an escape is malformed. */
export function splitPath(pathname: string): string[] | undefined {
  try {
    return pathname.slice(1).split("/").map(decodeURIComponent);
  } catch {
    return undefined;
  }
}
