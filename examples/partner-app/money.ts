// Amounts come from the API as integers in the currency's minor unit (priceMinor 622 in GBP is £6.22; in JPY, which
// has no minor unit, 622 is ¥622). Intl knows each ISO 4217 currency's digits, so the amount is scaled by them and
// formatted for people: never shown as "622 GBP".

/** `minor` units of `currency` (ISO 4217) as a person reads it in `locale`, e.g. formatMoney(622, "GBP") → "£6.22". */
export function formatMoney(minor: number, currency: string, locale = "en-GB"): string {
  const format = new Intl.NumberFormat(locale, { style: "currency", currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minor / 10 ** digits);
}
