#!/usr/bin/env python3
"""JSON schemas for kubeconform from a Kubernetes OpenAPI v2 document (swagger.json), with no network.

    kube-schemas.py SWAGGER_JSON OUT_DIR
    kube-schemas.py --crd OUT_DIR CRD_YAML...     (the served versions of CRDs; needs PyYAML)

Writes one standalone schema per kind and version, named as kubeconform's default schema location
names them ({kind}-{group's first label}-{version}.json, {kind}-{version}.json for the core group), in
the form of the "-standalone-strict" schemas kubeconform usually downloads: each holds the definitions
it refers to, an object with properties takes no other field (additionalProperties: false), any field
may be null, an int-or-string or a Quantity may be a string or a number. Only the Python standard
library: e2e/chart-test.sh runs it on the swagger.json of the k8s.io/kubernetes module at K8S_VERSION.
"""
import copy
import json
import os
import sys

REF = "#/definitions/"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"


def refs(schema, found):
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF):
            found.add(ref[len(REF):])
        for value in schema.values():
            refs(value, found)
    elif isinstance(schema, list):
        for value in schema:
            refs(value, found)


def closure(name, definitions):
    seen, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current in seen or current not in definitions:
            continue
        seen.add(current)
        found = set()
        refs(definitions[current], found)
        todo.extend(found - seen)
    return seen


def strict(schema):
    """additionalProperties: false where properties are listed; null allowed; int-or-string."""
    if isinstance(schema, list):
        return [strict(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: strict(v) for k, v in schema.items()}
    if out.get("format") == "int-or-string":
        out.pop("type", None)
        out.pop("format")
        out["oneOf"] = [{"type": ["string", "null"]}, {"type": "integer"}]
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    t = out.get("type")
    if isinstance(t, str):
        out["type"] = [t, "null"]
    return out


def main(swagger, out_dir):
    with open(swagger) as f:
        definitions = json.load(f)["definitions"]
    definitions = copy.deepcopy(definitions)
    if QUANTITY in definitions:  # "1" and 1 are both a Quantity, as the API server takes them
        definitions[QUANTITY] = {"oneOf": [{"type": ["string", "null"]}, {"type": "number"}]}
    definitions = {name: strict(schema) for name, schema in definitions.items()}
    os.makedirs(out_dir, exist_ok=True)
    written = {}
    for name, schema in sorted(definitions.items()):
        for gvk in schema.get("x-kubernetes-group-version-kind", []):
            group, version, kind = gvk["group"], gvk["version"], gvk["kind"]
            suffix = ("-" + group.split(".")[0] if group else "") + "-" + version
            file = f"{kind.lower()}{suffix.lower()}.json"
            if file in written and written[file] != name:
                sys.exit(f"kube-schemas.py: {file} is both {written[file]} and {name}")
            written[file] = name
            standalone = dict(schema)
            standalone["$schema"] = "http://json-schema.org/schema#"
            standalone["definitions"] = {d: definitions[d] for d in sorted(closure(name, definitions)) if d != name}
            # the kind's own $refs to itself (none in practice) would need it too
            with open(os.path.join(out_dir, file), "w") as f:
                json.dump(standalone, f, separators=(",", ":"), sort_keys=True)
    print(f"kube-schemas.py: {len(written)} schemas in {out_dir}")


def crds(out_dir, files):
    """The same form for the served versions of CRDs (kube-schemas.py --crd OUT_DIR CRD.yaml...; needs PyYAML)."""
    import yaml
    os.makedirs(out_dir, exist_ok=True)
    for file in files:
        with open(file) as f:
            crd = yaml.safe_load(f)
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for version in crd["spec"]["versions"]:
            if not version.get("served"):
                continue
            schema = version["schema"]["openAPIV3Schema"]
            # every object has these, whether the CRD's schema lists them or not
            properties = schema.setdefault("properties", {})
            for field, field_type in (("apiVersion", "string"), ("kind", "string"), ("metadata", "object")):
                properties.setdefault(field, {"type": field_type})
            schema = strict(schema)
            schema["$schema"] = "http://json-schema.org/schema#"
            name = f"{kind.lower()}-{group.split('.')[0].lower()}-{version['name'].lower()}.json"
            with open(os.path.join(out_dir, name), "w") as f:
                json.dump(schema, f, separators=(",", ":"), sort_keys=True)
            print(f"kube-schemas.py: {name} from {file}")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "--crd":
        crds(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 3:
        main(sys.argv[1], sys.argv[2])
    else:
        sys.exit(__doc__)
