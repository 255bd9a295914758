// Package webhook holds the building blocks of webhook delivery, without storage:
//
//   - signing and verifying per the Standard Webhooks specification
//     (https://www.standardwebhooks.com/): secrets, the webhook-id, webhook-timestamp and
//     webhook-signature headers, HMAC-SHA256 over "id.timestamp.body";
//   - the save-time URL check of webhook create and replace (spec 3 §4.5), with the exact
//     texts of the spec, which refuses private, local and reserved addresses in every literal
//     form a resolver might accept, without resolving names;
//   - the connect-time guard (Policy.DialContext, Policy.Client) that refuses the same
//     addresses at the moment a socket connects, whatever name resolved to them, so DNS
//     rebinding cannot pass the save-time check;
//   - one delivery attempt (Send) and its outcome (Attempt) in the terms of the delivery
//     record (spec 3 §2.3): status code, error kind, response excerpt, Retry-After.
//
// The durable outbox and the retry schedule build on these and live elsewhere.
package webhook
