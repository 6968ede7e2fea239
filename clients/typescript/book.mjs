// book.mjs — books a slot through openapi-fetch, typed by schema.d.ts (the
// types openapi-typescript generates from httpapi/openapi.json).
//
//   node book.mjs BASE TOKEN DATE IDEMPOTENCY_KEY [PAGE_SIZE]
//
// BASE is the server (http://127.0.0.1:8080), TOKEN a patient's bearer
// token, DATE a day (YYYY-MM-DD). It lists every doctor page by page
// following `next`, reads each doctor's slots of DATE until one has a free
// place, books it with IDEMPOTENCY_KEY, sends the same booking again with the
// same key, and prints one JSON object: the doctors listed, the slot, and
// both answers (the retry answers the appointment of the first).
// A problem+json answer is printed to stderr and the exit status is 1.
import createClient from "openapi-fetch";

/** @typedef {import("./schema.js").paths} paths */

const [base, token, date, key, pageSize] = process.argv.slice(2);
if (!base || !token || !date || !key) {
  console.error("usage: node book.mjs BASE TOKEN DATE IDEMPOTENCY_KEY [PAGE_SIZE]");
  process.exit(2);
}
const limit = pageSize ? Number(pageSize) : undefined;

/** @type {import("openapi-fetch").Client<paths>} */
const client = createClient({ baseUrl: base });

/**
 * fail prints what went wrong and ends the script.
 * @param {string} what
 * @param {Response} response
 * @param {unknown} problem
 * @returns {never}
 */
function fail(what, response, problem) {
  console.error(JSON.stringify({ failed: what, status: response.status, problem }));
  process.exit(1);
}

// Every doctor, one page at a time: `next` is the cursor of the next page,
// null on the last one.
/** @type {number[]} */
const doctors = [];
/** @type {string | undefined} */
let cursor;
for (let pages = 0; ; pages++) {
  if (pages === 1000) {
    console.error("more than 1000 pages of doctors");
    process.exit(1);
  }
  const { data, error, response } = await client.GET("/api/doctors", {
    params: { query: { limit, cursor } },
  });
  if (!data) fail("listDoctors", response, error);
  for (const d of data.items) doctors.push(d.id);
  if (data.next == null) break;
  cursor = data.next;
}

// The first doctor with a free place on that day.
let slot;
for (const id of doctors) {
  const { data, error, response } = await client.GET("/api/doctors/{id}/slots", {
    params: { path: { id }, query: { date } },
  });
  if (!data) fail("listSlots", response, error);
  slot = data.slots.find((s) => s.status === "OPEN" && s.remaining > 0);
  if (slot) break;
}
if (!slot) {
  console.error(JSON.stringify({ failed: "no free place on " + date, doctors }));
  process.exit(1);
}

/** @param {number} slotId */
async function book(slotId) {
  const { data, error, response } = await client.POST("/api/appointments", {
    params: { header: { "Idempotency-Key": key } },
    headers: { Authorization: "Bearer " + token },
    body: { slotId },
  });
  if (!data) fail("book", response, error);
  return { status: response.status, appointment: data };
}

const first = await book(slot.id);
const retry = await book(slot.id);
console.log(JSON.stringify({ doctors, slot: { id: slot.id, doctorId: slot.doctorId, startAt: slot.startAt }, first, retry }));
