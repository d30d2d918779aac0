#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/k8s_stream.py - what kubectl makes of a stream of manifests, offline.

    python3 tests/k8s_stream.py build DIR      # as "kubectl kustomize DIR": the stream on stdout
    python3 tests/k8s_stream.py objects FILE   # KIND/NAME of each document of a stream ("-": stdin)

documents(text) splits a stream where kubectl's reader does
(k8s.io/apimachinery's YAMLReader): at a line that begins with "---"
followed by nothing but blanks or a comment.  Files joined without such a
line are one document, in which kubectl keeps the last of two equal keys:
load() refuses a duplicate key instead, naming it, since that is how a
second object silently replaced the first (issue 40: two Jobs joined by
sed into one stream created only the second).

build(DIR) is the part of kustomize k8s/kustomization.yaml uses: its
resources, in order, and configMapGenerator's ConfigMaps from env files
(KEY=VALUE lines, # comments), each named NAME-HASH with a hash of its
content, and every configMapKeyRef, configMapRef and configMap volume of a
pod template that names NAME renamed to it.  Anything else in the file is
refused, so that the test never silently differs from kubectl.
"""
import hashlib
import json
import os
import re
import sys

import yaml

SEPARATOR = re.compile(r"^---\s*(#.*)?$")


class StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a mapping with two equal keys."""


def _mapping(loader, node, deep=False):
    seen = {}
    for knode, _ in node.value:
        key = loader.construct_object(knode, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first on line {seen[key] + 1}): kubectl keeps the "
                f"last and loses the first; were two manifests joined without a --- line?",
                knode.start_mark)
        seen[key] = knode.start_mark.line
    return loader.construct_mapping(node, deep=deep)


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def documents(text):
    """The stream's documents as kubectl's reader splits it: (first line, text)."""
    docs, cur, start = [], [], 1
    for n, line in enumerate(text.splitlines(keepends=True), 1):
        if line.startswith("---") and SEPARATOR.match(line.rstrip("\n")):
            docs.append((start, "".join(cur)))
            cur, start = [], n + 1
        else:
            cur.append(line)
    docs.append((start, "".join(cur)))
    return docs


def load(text):
    """The objects of a stream, [(first line, object)]; empty documents left
    out.  Raises yaml.YAMLError (a duplicate key is one)."""
    out = []
    for start, doc in documents(text):
        obj = yaml.load(doc, Loader=StrictLoader)
        if obj is not None:
            out.append((start, obj))
    return out


def name_of(obj):
    return f"{obj.get('kind', '?')}/{(obj.get('metadata') or {}).get('name', '?')}"


def _env_file(path):
    data = {}
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ValueError(f"{path}: {line!r} is not KEY=VALUE")
        data[key] = value
    return data


def _hash(cm):
    # a name suffix that changes with the content (kustomize's is another
    # digest of it; only that it changes matters here)
    blob = json.dumps({"kind": "ConfigMap", "name": cm["metadata"]["name"], "data": cm["data"]}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:10]


def _pod_specs(obj):
    spec = obj.get("spec") or {}
    if obj.get("kind") == "Pod":
        yield spec
    elif "template" in spec:
        yield (spec["template"].get("spec") or {})


def _rename(obj, names):
    for pod in _pod_specs(obj):
        for c in (pod.get("initContainers") or []) + (pod.get("containers") or []):
            for e in c.get("env") or []:
                ref = (e.get("valueFrom") or {}).get("configMapKeyRef")
                if ref and ref.get("name") in names:
                    ref["name"] = names[ref["name"]]
            for e in c.get("envFrom") or []:
                ref = e.get("configMapRef")
                if ref and ref.get("name") in names:
                    ref["name"] = names[ref["name"]]
        for v in pod.get("volumes") or []:
            ref = v.get("configMap")
            if ref and ref.get("name") in names:
                ref["name"] = names[ref["name"]]


def build(d):
    """kubectl kustomize D, for what k8s/kustomization.yaml uses: the stream."""
    k = yaml.load(open(os.path.join(d, "kustomization.yaml")), Loader=StrictLoader)
    unknown = set(k) - {"apiVersion", "kind", "resources", "configMapGenerator"}
    if unknown:
        raise ValueError(f"{d}/kustomization.yaml: {sorted(unknown)}: not what this offline build knows")
    objs, names = [], {}
    for g in k.get("configMapGenerator") or []:
        if set(g) - {"name", "envs"}:
            raise ValueError(f"{d}/kustomization.yaml: configMapGenerator {g.get('name')}: only name and envs")
        data = {}
        for e in g.get("envs") or []:
            data.update(_env_file(os.path.join(d, e)))
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": g["name"]}, "data": data}
        names[g["name"]] = cm["metadata"]["name"] = f"{g['name']}-{_hash(cm)}"
        objs.append(cm)
    for r in k.get("resources") or []:
        for _, obj in load(open(os.path.join(d, r)).read()):
            _rename(obj, names)
            objs.append(obj)
    return "---\n".join(yaml.safe_dump(o, sort_keys=False) for o in objs)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("build", "objects"):
        sys.exit("usage: k8s_stream.py build DIR | objects FILE")
    try:
        if sys.argv[1] == "build":
            sys.stdout.write(build(sys.argv[2]))
        else:
            text = sys.stdin.read() if sys.argv[2] == "-" else open(sys.argv[2]).read()
            for _, obj in load(text):
                print(name_of(obj))
    except (OSError, ValueError, yaml.YAMLError) as e:
        sys.exit(f"k8s_stream.py: {e}")


if __name__ == "__main__":
    main()
