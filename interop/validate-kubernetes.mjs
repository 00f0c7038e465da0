// Validates Kubernetes manifests against the Kubernetes API's OpenAPI schema, the way the API server's strict field
// validation (kubectl apply's default) would: every object by the schema of its apiVersion and kind, with the
// validators kubernetes-models generates from that schema (types, required fields, enums, formats), and no field that
// the schema does not have (a misspelt field is an error, not something the API server would drop).
//
//   kubectl kustomize deploy/kubernetes/overlays/single | node interop/validate-kubernetes.mjs
//   node interop/validate-kubernetes.mjs rendered.yaml ...
//
// Prints one line per object; exits 1 if any object is invalid or of a kind the schema does not know.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

const CORE_GROUP = "v1";

async function modelFor(apiVersion, kind) {
  if (typeof apiVersion !== "string" || typeof kind !== "string" || !/^[A-Za-z0-9]+$/.test(kind)) {
    throw new Error("has no apiVersion and kind to validate it by");
  }
  const path = apiVersion === CORE_GROUP ? `v1/${kind}` : apiVersion.includes("/") ? `${apiVersion}/${kind}` : null;
  if (path === null) {
    throw new Error(`has the apiVersion ${apiVersion}, which names no group/version`);
  }
  let module;
  try {
    module = await import(`kubernetes-models/${path}`);
  } catch {
    throw new Error(`is a ${kind} of ${apiVersion}, which the Kubernetes API schema does not have`);
  }
  const model = module[kind];
  if (typeof model !== "function" || typeof model.prototype.validate !== "function") {
    throw new Error(`is a ${kind} of ${apiVersion}, which the Kubernetes API schema does not have`);
  }
  return model;
}

// The generated validators read every property that the schema defines, and only those (maps such as labels are
// walked key by key). Wrapping the object in proxies that record what the validator read, the properties it never read
// are the ones the schema does not have.
function tracked(root) {
  const read = new Map();
  const proxies = new WeakMap();
  function wrap(value, path) {
    if (value === null || typeof value !== "object") {
      return value;
    }
    if (proxies.has(value)) {
      return proxies.get(value);
    }
    if (!Array.isArray(value)) {
      read.set(path, { object: value, keys: new Set() });
    }
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        const result = Reflect.get(target, key, receiver);
        if (typeof key !== "string") {
          return result;
        }
        if (!Array.isArray(target)) {
          read.get(path).keys.add(key);
        }
        return Object.prototype.hasOwnProperty.call(target, key) ? wrap(result, `${path}/${key}`) : result;
      },
      has(target, key) {
        if (typeof key === "string" && !Array.isArray(target)) {
          read.get(path).keys.add(key);
        }
        return Reflect.has(target, key);
      },
    });
    proxies.set(value, proxy);
    return proxy;
  }
  const unknown = () => {
    const fields = [];
    for (const [path, { object, keys }] of read) {
      for (const key of Object.keys(object)) {
        if (!keys.has(key)) {
          fields.push(`${path}/${key}`);
        }
      }
    }
    return fields;
  };
  return { proxy: wrap(root, ""), unknown };
}

async function validate(object) {
  const model = await modelFor(object?.apiVersion, object?.kind);
  const { proxy, unknown } = tracked(object);
  const problems = [];
  try {
    model.prototype.validate.call(proxy);
  } catch (error) {
    const errors = Array.isArray(error.errors) ? error.errors : [{ instancePath: "", message: error.message }];
    for (const e of errors) {
      const allowed = e.params?.allowedValues ? ` (${e.params.allowedValues.join(", ")})` : "";
      problems.push(`data${e.instancePath} ${e.message}${allowed}`);
    }
  }
  for (const field of unknown()) {
    problems.push(`data${field} is not a field of ${object.kind} in the Kubernetes API schema`);
  }
  return problems;
}

const inputs = process.argv.length > 2 ? process.argv.slice(2) : ["/dev/stdin"];
let objects = 0;
let invalid = 0;
for (const input of inputs) {
  const text = readFileSync(input, "utf8");
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) {
      console.error(`${input}: not YAML: ${document.errors.map((e) => e.message).join("; ")}`);
      invalid++;
      continue;
    }
    const object = document.toJS();
    if (object === null || object === undefined) {
      continue;
    }
    objects++;
    const name = `${object?.kind ?? "?"}/${object?.metadata?.name ?? "?"}`;
    let problems;
    try {
      problems = await validate(object);
    } catch (error) {
      problems = [error.message];
    }
    if (problems.length === 0) {
      console.log(`valid ${object.apiVersion} ${name}`);
    } else {
      invalid++;
      console.error(`invalid ${object?.apiVersion ?? "?"} ${name}:\n  ${problems.join("\n  ")}`);
    }
  }
}
console.log(`${objects} object(s), ${invalid} invalid`);
process.exit(invalid === 0 && objects > 0 ? 0 : 1);
