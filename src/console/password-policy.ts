// The console's minimum password strength (docs/decisions.md, "Console"): length first (NIST SP 800-63B 5.1.1.2:
// at least 8, we ask 12; no composition rules), plus refusals of the obviously guessable.

export const minPasswordLength = 12;
export const maxPasswordLength = 128;

/** A few of the most common passwords of 12+ characters; the length rule already stops the shorter ones. */
const common = new Set([
  "password1234",
  "123456789012",
  "qwertyuiopas",
  "passwordpassword",
  "iloveyou1234",
  "administrator",
]);

/** The rule a password breaks, or undefined when it is acceptable. */
export function passwordWeakness(password: string, email: string): string | undefined {
  const characters = [...password];
  if (characters.length < minPasswordLength) return `at least ${minPasswordLength} characters`;
  if (characters.length > maxPasswordLength) return `at most ${maxPasswordLength} characters`;
  if (new Set(characters).size < 5) return "at least 5 different characters";
  const lower = password.toLowerCase();
  if (common.has(lower)) return "not a common password";
  const local = email.toLowerCase().split("@")[0] ?? "";
  if (local.length >= 4 && lower.includes(local)) return "must not contain your email address";
  return undefined;
}
