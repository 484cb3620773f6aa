// The stores a seeded merchant (demo, sandbox) starts with: an address in its region, the region's time zone and
// opening hours a partner can build against (issue 39). Store 1 is open around the clock, so an order placed at any
// hour of a test or a demo finds it open; store 2 keeps a café's hours, with a late range past midnight on Friday and
// Saturday, a split day, a closed Monday and Christmas Day closed.
import type { Region } from "../config/regions.js";
import type { SeedStore } from "./queries/region-seed-queries.js";
import type { StoredOpeningHours } from "./opening-hours.js";

const regionPlaces: Readonly<
  Record<
    Region,
    { timeZone: string; street: string; city: string; region?: string; postcode?: string; country: string }
  >
> = {
  uk: { timeZone: "Europe/London", street: "High Street", city: "London", postcode: "EC1A 1BB", country: "GB" },
  us: {
    timeZone: "America/New_York",
    street: "Main Street",
    city: "New York",
    region: "NY",
    postcode: "10001",
    country: "US",
  },
  in: {
    timeZone: "Asia/Kolkata",
    street: "MG Road",
    city: "Bengaluru",
    region: "Karnataka",
    postcode: "560001",
    country: "IN",
  },
  // Addresses in the UAE carry no postcode.
  ae: { timeZone: "Asia/Dubai", street: "Sheikh Zayed Road", city: "Dubai", region: "Dubai", country: "AE" },
};

const allDay = [{ open: "00:00", close: "24:00" }];
const weekdays = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"];

/** Around the clock, every day. */
const alwaysOpen: StoredOpeningHours = { weekly: weekdays.map((day) => ({ day, ranges: allDay })), exceptions: [] };

/** A café's week: closed Mondays, late past midnight on Friday and Saturday, a break on Sunday, Christmas Day shut. */
function cafeHours(now: Date): StoredOpeningHours {
  const day = (name: string, ranges: Array<{ open: string; close: string }>) => ({ day: name, ranges });
  return {
    weekly: [
      day("TUESDAY", [{ open: "08:00", close: "22:00" }]),
      day("WEDNESDAY", [{ open: "08:00", close: "22:00" }]),
      day("THURSDAY", [{ open: "08:00", close: "22:00" }]),
      day("FRIDAY", [{ open: "08:00", close: "02:00" }]),
      day("SATURDAY", [{ open: "09:00", close: "02:00" }]),
      day("SUNDAY", [
        { open: "09:00", close: "13:00" },
        { open: "15:00", close: "20:00" },
      ]),
    ],
    exceptions: [{ date: `${now.getUTCFullYear()}-12-25`, ranges: [], note: "Christmas Day" }],
  };
}

/** The `count` stores of a seeded merchant of `region`. */
export function seedStores(region: Region, count: number, now: Date): SeedStore[] {
  const place = regionPlaces[region];
  return Array.from({ length: count }, (_, index) => ({
    name: `Store ${index + 1}`,
    address: {
      line1: `${index + 1} ${place.street}`,
      city: place.city,
      ...(place.region ? { region: place.region } : {}),
      ...(place.postcode ? { postcode: place.postcode } : {}),
      country: place.country,
    },
    timeZone: place.timeZone,
    openingHours: index % 2 === 0 ? alwaysOpen : cafeHours(now),
  }));
}
