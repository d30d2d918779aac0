#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/k8s_check.py - check the Kubernetes manifests offline.

    python3 tests/k8s_check.py SCHEMA.json CONTAINERFILE MANIFEST.yaml...

1. Every document of every manifest against the Kubernetes API's schema
   (k8s/schema/kubernetes-1.22.json, made by tests/k8s_schema.py): the
   fields, their types, the required ones; a field the API does not know
   is an error, as the API server's strict field validation makes it.
2. The securityContext rules a cluster enforces at run time, which no
   schema says: every pod runs with runAsNonRoot: true and a numeric
   runAsUser that is not 0 (a container's own securityContext may set it,
   never runAsNonRoot: false), no container allows privilege escalation;
   the image's USER (the Containerfile's) is numeric, not 0, and the uid
   the pods run as.  (A kubelet refuses runAsNonRoot with a user given by
   name: "container has runAsNonRoot and image has non-numeric user".)

Prints a line per document and per rule; exits 1 when any fails.  Needs
python3-yaml and python3-jsonschema (ci/install-deps.sh).
"""
import json
import re
import sys

import jsonschema
import yaml


def containerfile_user(path):
    user = None
    for line in open(path):
        m = re.match(r"\s*USER\s+(\S+)", line)
        if m:
            user = m.group(1)
    return user


def pod_spec(doc):
    kind = doc.get("kind")
    spec = doc.get("spec") or {}
    if kind == "Pod":
        return spec
    if kind in ("Job", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"):
        return (spec.get("template") or {}).get("spec") or {}
    if kind == "CronJob":
        return (((spec.get("jobTemplate") or {}).get("spec") or {}).get("template") or {}).get("spec") or {}
    return None


def security_errors(pod, image_uid):
    errs = []
    psc = pod.get("securityContext") or {}
    for c in (pod.get("initContainers") or []) + (pod.get("containers") or []):
        csc = c.get("securityContext") or {}
        name = c.get("name", "?")
        non_root = csc.get("runAsNonRoot", psc.get("runAsNonRoot"))
        uid = csc.get("runAsUser", psc.get("runAsUser"))
        if non_root is not True:
            errs.append(f"container {name}: runAsNonRoot is not true")
        if not isinstance(uid, int) or isinstance(uid, bool):
            errs.append(f"container {name}: runAsNonRoot without a numeric runAsUser: the kubelet "
                        f"cannot check an image's named user (\"image has non-numeric user\")")
        elif uid == 0:
            errs.append(f"container {name}: runAsUser 0 is root")
        elif image_uid is not None and uid != image_uid:
            errs.append(f"container {name}: runAsUser {uid} is not the image's USER {image_uid}")
        if csc.get("allowPrivilegeEscalation") is not False:
            errs.append(f"container {name}: allowPrivilegeEscalation is not false")
    return errs


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: k8s_check.py SCHEMA.json CONTAINERFILE MANIFEST.yaml...")
    schema = json.load(open(sys.argv[1]))
    bad = 0

    user = containerfile_user(sys.argv[2])
    m = re.fullmatch(r"(\d+)(?::(\d+))?", user or "")
    image_uid = int(m.group(1)) if m else None
    if not m:
        print(f"FAIL {sys.argv[2]}: USER {user!r} is not numeric (uid or uid:gid): "
              f"a pod with runAsNonRoot cannot start from it")
        bad += 1
    elif image_uid == 0:
        print(f"FAIL {sys.argv[2]}: USER {user} is root")
        bad += 1
    else:
        print(f"ok   {sys.argv[2]}: USER {user}, numeric and not root")

    for path in sys.argv[3:]:
        try:
            docs = [d for d in yaml.safe_load_all(open(path)) if d is not None]
        except yaml.YAMLError as e:
            print(f"FAIL {path}: not YAML: {e}")
            bad += 1
            continue
        for i, doc in enumerate(docs):
            what = f"{path}[{i}] {doc.get('kind', '?')}/{(doc.get('metadata') or {}).get('name', '?')}"
            key = f"{doc.get('apiVersion')}/{doc.get('kind')}"
            ref = schema["kinds"].get(key)
            if not ref:
                print(f"FAIL {what}: {key} is not a kind the schema holds ({', '.join(schema['kinds'])})")
                bad += 1
                continue
            v = jsonschema.Draft7Validator({"$ref": ref, "definitions": schema["definitions"]})
            errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
            for e in errs:
                loc = ".".join(str(p) for p in e.absolute_path) or "(top)"
                print(f"FAIL {what}: {loc}: {e.message}")
            bad += len(errs)
            if not errs:
                print(f"ok   {what}: valid against the Kubernetes API schema ({key})")
            pod = pod_spec(doc)
            if pod is None:
                continue
            serrs = security_errors(pod, image_uid)
            for e in serrs:
                print(f"FAIL {what}: securityContext: {e}")
            bad += len(serrs)
            if not serrs:
                print(f"ok   {what}: securityContext: runAsNonRoot with numeric runAsUser "
                      f"{(pod.get('securityContext') or {}).get('runAsUser')}, the image's; "
                      f"no privilege escalation")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
