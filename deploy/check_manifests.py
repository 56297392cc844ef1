#!/usr/bin/python3
"""Offline structural check of Kubernetes manifests against the typed models of
Debian's python3-kubernetes (the official client, its models generated from the
Kubernetes OpenAPI schema of its release: 22.6.0 is Kubernetes 1.22).

  /usr/bin/python3 deploy/check_manifests.py FILE.yaml...

Each YAML document must be a kind the client has a model for (apiVersion/kind mapped
to V1Job, V1PersistentVolumeClaim, ...); every field anywhere in it must be one of its
model's fields (an unknown or misspelt field is an error, where kubectl apply with
--validate=false or the client's own deserializer would drop it silently), scalars must
have the model's type (str, int, bool), and the client's deserializer (ApiClient,
client-side validation on) must accept the document, which rejects a missing required
field (a container without a name) and values outside an enum the client checks.
Exit 0 when every document passes, 1 naming each fault by file, document and path,
2 on bad usage or an unreadable file. No API server is needed.
"""
import re
import sys

import yaml
from kubernetes import client


def model_for(api_version, kind):
    """The client's model class for apiVersion/kind, or None."""
    version = api_version.split("/")[-1]  # batch/v1 -> v1, v1 -> v1
    name = version[0].upper() + version[1:] + kind  # v1 + Job -> V1Job
    return getattr(client, name, None)


def check_value(value, type_name, path, faults):
    """Checks `value` against the client type name ('V1PodSpec', 'list[V1Container]',
    'dict(str, str)', 'str', 'int', 'bool', 'object', 'datetime')."""
    if value is None:
        return
    m = re.fullmatch(r"list\[(.+)\]", type_name)
    if m:
        if not isinstance(value, list):
            faults.append(f"{path}: a list expected, got {type(value).__name__}")
            return
        for i, v in enumerate(value):
            check_value(v, m.group(1), f"{path}[{i}]", faults)
        return
    m = re.fullmatch(r"dict\(([^,]+), (.+)\)", type_name)
    if m:
        if not isinstance(value, dict):
            faults.append(f"{path}: a map expected, got {type(value).__name__}")
            return
        for k, v in value.items():
            check_value(v, m.group(2), f"{path}.{k}", faults)
        return
    scalars = {"str": (str,), "int": (int,), "float": (int, float), "bool": (bool,)}
    if type_name in scalars:
        ok = isinstance(value, scalars[type_name]) and not (
            type_name != "bool" and isinstance(value, bool))
        if not ok:
            faults.append(f"{path}: {type_name} expected, got {type(value).__name__} {value!r}")
        return
    if type_name in ("object", "datetime", "date"):
        return
    model = getattr(client, type_name, None)
    if model is None:
        faults.append(f"{path}: the client has no model {type_name}")
        return
    if not isinstance(value, dict):
        faults.append(f"{path}: an object ({type_name}) expected, got {type(value).__name__}")
        return
    by_json_name = {json: attr for attr, json in model.attribute_map.items()}
    for key, v in value.items():
        if key not in by_json_name:
            faults.append(f"{path}.{key}: unknown field of {type_name} "
                          f"(known: {', '.join(sorted(by_json_name))})")
            continue
        check_value(v, model.openapi_types[by_json_name[key]], f"{path}.{key}", faults)


class _Response:  # what ApiClient.deserialize reads: .data, JSON text
    def __init__(self, text):
        self.data = text


def check_document(doc, where):
    faults = []
    if not isinstance(doc, dict):
        return [f"{where}: not a mapping"]
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return [f"{where}: no apiVersion/kind"]
    model = model_for(api_version, kind)
    if model is None:
        return [f"{where}: no model for apiVersion {api_version} kind {kind}"]
    check_value(doc, model.__name__, f"{where}: {kind}", faults)
    if faults:
        return faults
    import json
    try:
        client.ApiClient().deserialize(_Response(json.dumps(doc)), model.__name__)
    except (ValueError, TypeError) as e:
        faults.append(f"{where}: {kind}: the client's deserializer refuses it: {e}")
    return faults


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    faults, documents = [], 0
    for path in argv[1:]:
        try:
            with open(path, encoding="utf-8") as f:
                docs = list(yaml.safe_load_all(f))
        except OSError as e:
            print(f"check_manifests: {path}: {e.strerror}", file=sys.stderr)
            return 2
        except yaml.YAMLError as e:
            faults.append(f"{path}: not YAML: {e}")
            continue
        for i, doc in enumerate(docs):
            if doc is None:
                continue
            documents += 1
            faults += check_document(doc, f"{path} document {i + 1}")
    for fault in faults:
        print(f"check_manifests: {fault}", file=sys.stderr)
    if faults:
        return 1
    print(f"check_manifests: {documents} documents in {len(argv) - 1} files match the "
          f"models of the Kubernetes Python client {client.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
