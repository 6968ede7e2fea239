// Package tsclient holds slotd's TypeScript client: schema.d.ts, the types
// openapi-typescript generates from httpapi/openapi.json (npm run generate),
// and book.mjs, an example that books through openapi-fetch with them. Its
// test runs book.mjs against a real server; see README.md.
package tsclient
