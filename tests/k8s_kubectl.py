#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/k8s_kubectl.py - the part of kubectl docs/multi-host.md's launch
uses, against a directory instead of a cluster, so that "make check-fleet"
runs the launch exactly as written (installed as "kubectl" on the PATH).

    KUBECTL_STATE=DIR kubectl create secret generic NAME --from-file=[KEY=]PATH...
    KUBECTL_STATE=DIR kubectl create configmap NAME --from-file=[KEY=]PATH...
    KUBECTL_STATE=DIR kubectl delete job NAME... [--ignore-not-found]
    KUBECTL_STATE=DIR kubectl apply -k DIR | -f FILE|-
    KUBECTL_STATE=DIR kubectl logs ... | kustomize DIR

A Secret or ConfigMap becomes DIR/secret/NAME/KEY or DIR/configmap/NAME/KEY
(a directory given to --from-file gives each regular file in it, as
kubectl does); what apply creates is appended to DIR/applied.yaml, built
and split as kubectl would (tests/k8s_stream.py).  --from-literal is
refused: a secret on a command line is in the shell's history and in ps.
Every call is logged, in DIR/calls.  Anything else: exit 1, naming it.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_stream  # noqa: E402


def die(msg):
    sys.exit(f"kubectl (offline, tests/k8s_kubectl.py): {msg}")


def create(state, kind, name, opts):
    d = os.path.join(state, kind, name)
    if os.path.exists(d):
        die(f'{kind}s "{name}" already exists')
    os.makedirs(d)
    for o in opts:
        if o.startswith("--from-literal"):
            die(f"{o.split('=', 1)[0]}: refused here: the value would be on a command line (use --from-file)")
        if not o.startswith("--from-file="):
            die(f"create {kind}: {o}: not supported offline")
        key, sep, path = o[len("--from-file="):].partition("=")
        if not sep:
            key, path = os.path.basename(key.rstrip("/")), key
        if os.path.isdir(path):
            for f in sorted(os.listdir(path)):
                if os.path.isfile(os.path.join(path, f)):
                    shutil.copyfile(os.path.join(path, f), os.path.join(d, f))
        else:
            shutil.copyfile(path, os.path.join(d, key))
    print(f"{kind}/{name} created")


def apply(state, args):
    if args[:1] == ["-k"] and len(args) == 2:
        text = k8s_stream.build(args[1])
    elif args[:1] == ["-f"] and len(args) == 2:
        text = sys.stdin.read() if args[1] == "-" else open(args[1]).read()
    else:
        die(f"apply {' '.join(args)}: not supported offline")
    objs = k8s_stream.load(text)
    out = os.path.join(state, "applied.yaml")
    with open(out, "a") as f:
        if os.path.getsize(out):
            f.write("---\n")
        f.write(text)
    for _, o in objs:
        print(f"{k8s_stream.name_of(o).lower()} created")


def main():
    state = os.environ.get("KUBECTL_STATE")
    if not state:
        die("KUBECTL_STATE is not set")
    os.makedirs(state, exist_ok=True)
    a = sys.argv[1:]
    with open(os.path.join(state, "calls"), "a") as f:
        f.write(" ".join(a) + "\n")
    try:
        if a[:2] == ["create", "secret"] and len(a) >= 4 and a[2] == "generic":
            create(state, "secret", a[3], a[4:])
        elif a[:2] == ["create", "configmap"] and len(a) >= 3:
            create(state, "configmap", a[2], a[3:])
        elif a[:2] == ["delete", "job"]:
            pass            # nothing ran before: nothing to delete
        elif a[:1] == ["apply"]:
            apply(state, a[1:])
        elif a[:1] == ["logs"]:
            pass            # the test reads the collection pod's output itself
        elif a[:1] == ["kustomize"] and len(a) == 2:
            sys.stdout.write(k8s_stream.build(a[1]))
        else:
            die(f"{' '.join(a)}: not supported offline")
    except (OSError, ValueError, k8s_stream.yaml.YAMLError) as e:
        die(" ".join(str(e).split()))


if __name__ == "__main__":
    main()
