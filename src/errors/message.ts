// Turns a code and its params into words: template interpolation and the localised message of a code.
import { entryOf, type ErrorCode, type Params } from "./catalogue.js";
import type { Locale } from "./locale.js";

const placeholder = /\{([A-Za-z0-9_]+)\}/g;

/** The param names a template uses, in order of first use, each once. */
export function templateParams(template: string): string[] {
  return [...new Set(Array.from(template.matchAll(placeholder), (match) => match[1] ?? ""))];
}

/**
 * Fills `{name}` placeholders from `params`. A param that was not supplied (or is undefined) becomes the empty string, so a
 * placeholder's name never reaches a reader; the catalogue test makes sure every template's params exist.
 */
export function interpolate(
  template: string,
  params: Readonly<Record<string, string | number | undefined>> = {},
): string {
  return template.replace(placeholder, (_, name: string) => {
    const value = Object.hasOwn(params, name) ? params[name] : undefined;
    return value === undefined ? "" : String(value);
  });
}

/** The message of `code` in `locale`, params filled in. */
export function messageFor(code: ErrorCode, params: Params = {}, locale: Locale = "en"): string {
  return interpolate(entryOf(code).messages[locale], params);
}
