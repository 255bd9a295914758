// Verifies deliveries signed by timbra with the Standard Webhooks reference library
// (npm standardwebhooks), as a receiver would.
//
// stdin: a JSON array of cases {name, secret, headers, bodyBase64}.
// stdout: a JSON array of results {name, verified, error, sign}: verified is true when
// new Webhook(secret).verify(payload, headers) accepted the delivery; error is the library's
// message otherwise; sign is the library's own signature of the same id, timestamp and body.
import { Webhook } from "standardwebhooks";

let input = "";
for await (const chunk of process.stdin) input += chunk;

const results = JSON.parse(input).map(({ name, secret, headers, bodyBase64 }) => {
  const payload = Buffer.from(bodyBase64, "base64");
  const wh = new Webhook(secret);
  let verified = false;
  let error = null;
  try {
    wh.verify(payload, headers);
    verified = true;
  } catch (e) {
    error = `${e.name}: ${e.message}`;
  }
  const ts = new Date(Number.parseInt(headers["webhook-timestamp"], 10) * 1000);
  const sign = wh.sign(headers["webhook-id"], ts, payload);
  return { name, verified, error, sign };
});

process.stdout.write(JSON.stringify(results));
