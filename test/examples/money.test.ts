// examples/partner-app/money.ts: amounts in minor units shown in major units with each currency's own digits.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { formatMoney } from "../../examples/partner-app/money.js";

const Money = suite("examples/partner-app/money");

Money("minor units by the currency's digits: two (GBP, USD, INR, AED), none (JPY), three (KWD)", () => {
  assert.is(formatMoney(622, "GBP"), "£6.22");
  assert.is(formatMoney(5, "USD"), "US$0.05");
  assert.is(formatMoney(12345, "INR", "en-IN"), "₹123.45");
  assert.is(formatMoney(622, "AED"), "AED\u00a06.22"); // Intl separates a code from the amount with a no-break space
  assert.is(formatMoney(622, "JPY"), "JP¥622");
  assert.is(formatMoney(1000, "KWD"), "KWD\u00a01.000");
  assert.is(formatMoney(123456789, "GBP"), "£1,234,567.89");
});

Money.run();
