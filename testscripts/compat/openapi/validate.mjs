// Validates an OpenAPI document (the path in argv[2]) against the official schema of its
// version; prints the errors and exits 1 when it is not valid.
import { Validator } from "@seriousme/openapi-schema-validator";

const validator = new Validator();
const result = await validator.validate(process.argv[2]);
if (!result.valid) {
  console.error(JSON.stringify(result.errors, null, 2));
  process.exit(1);
}
console.log(`valid OpenAPI ${validator.version}`);
