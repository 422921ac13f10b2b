// verifier/documents/schemas/validate.ts: validates a document against its schema in the bundle (docs/design.md §3
// strict reading) with ajv, and turns ajv's errors into one reason code: an undefined member is
// `unknown_field` (the detail and `path` name its JSON Pointer), an algorithm other than EdDSA or
// ES256 is `unsupported_alg`, a malformed hash string `invalid_hash`, anything else
// `invalid_document`. ajv is configured never to change the data (no removal of members, no
// defaults, no type coercion) and to look at own members only (docs/design.md §3: names are ordinary
// strings; Object.prototype's are not members): what is hashed and signed is exactly what was
// read. Schemas are compiled lazily, once per validator, so importing this module does no work.

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { fail, ok, type Failure, type Result } from '../../errors.ts';
import { isBase64url, isHashString, isTime } from '../../encoding/wire.ts';
import { isValidOrigin } from '../log-descriptor.ts';
import { SCHEMA_BUNDLE, SCHEMA_ID, type DocumentKind } from './bundle.ts';

export interface SchemaValidator {
  /** ok when `json` satisfies the schema of `kind`; otherwise the first failure by priority. */
  validate(kind: DocumentKind, json: unknown): Result<true>;
}

export function createSchemaValidator(): SchemaValidator {
  const ajv = new Ajv({
    strict: true,
    allErrors: true,
    removeAdditional: false,
    useDefaults: false,
    coerceTypes: false,
    validateFormats: true,
    // Members are the document's own, never inherited ones: `required` and `properties` test
    // hasOwnProperty, and unknown members are found over own keys, so a member named `toString`
    // is unknown, and a polluted Object.prototype can neither supply a required member nor add
    // an unknown one (a small cost per entry).
    ownProperties: true,
  });
  ajv.addFormat('hash', { type: 'string', validate: (s: string) => isHashString(s) });
  ajv.addFormat('time', { type: 'string', validate: (s: string) => isTime(s) });
  // What fromBase64url accepts, checked without decoding (no buffer per signature).
  ajv.addFormat('base64url', { type: 'string', validate: (s: string) => isBase64url(s) });
  // Every entry of a log names the same origin: the last valid one is remembered (one string per
  // validator), so a bundle's entries do not repeat the origin's checks.
  let validOrigin: string | undefined;
  ajv.addFormat('origin', {
    type: 'string',
    validate: (s: string) => {
      if (s === validOrigin) return true;
      if (!isValidOrigin(s)) return false;
      validOrigin = s;
      return true;
    },
  });
  ajv.addSchema(SCHEMA_BUNDLE);
  const compiled = new Map<DocumentKind, ValidateFunction>();

  function validatorFor(kind: DocumentKind): ValidateFunction {
    let f = compiled.get(kind);
    if (!f) {
      f = ajv.getSchema(`${SCHEMA_ID}#/definitions/${kind}`);
      if (!f) throw new TypeError(`no schema for ${kind}`);
      compiled.set(kind, f);
    }
    return f;
  }

  return {
    validate(kind, json) {
      const f = validatorFor(kind);
      if (f(json)) return ok(true);
      return classify(f.errors ?? []);
    },
  };
}

let shared: SchemaValidator | undefined;

/** The process-wide validator, created on first use. */
export function schemaValidator(): SchemaValidator {
  if (!shared) shared = createSchemaValidator();
  return shared;
}

/** RFC 6901 escaping of one reference token. */
export function pointerToken(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

function classify(errors: ErrorObject[]): Failure {
  const unknown = errors.find((e) => e.keyword === 'additionalProperties');
  if (unknown) {
    const path = `${unknown.instancePath}/${pointerToken(String(unknown.params.additionalProperty))}`;
    return fail('unknown_field', `unknown member ${path}`, { path });
  }
  const alg = errors.find((e) => e.keyword === 'enum' && /\/alg$/.test(e.instancePath));
  if (alg) return fail('unsupported_alg', `${alg.instancePath}: an algorithm other than EdDSA or ES256`, { path: alg.instancePath });
  const hash = errors.find((e) => e.keyword === 'format' && e.params.format === 'hash');
  if (hash) return fail('invalid_hash', `${hash.instancePath}: not sha256: plus 64 lowercase hex digits`, { path: hash.instancePath });
  const first = errors[0];
  if (!first) return fail('invalid_document', 'the document breaks its schema');
  const path = first.instancePath || '/';
  const what =
    first.keyword === 'format'
      ? `is not a valid ${String(first.params.format)}`
      : first.keyword === 'enum'
        ? `${first.message} (${(first.params.allowedValues as unknown[]).join(', ')})`
        : first.message;
  return fail('invalid_document', `${path}: ${what}`, { path });
}
