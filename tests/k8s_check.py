#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/k8s_check.py - check the Kubernetes manifests offline.

    python3 tests/k8s_check.py SCHEMA.json CONTAINERFILE [--objects KIND/NAME,...] SOURCE...

A SOURCE is a manifest file, "-" (a stream on stdin, as "kubectl apply
-f -" reads it) or "-k DIR" (what "kubectl apply -k DIR" creates:
tests/k8s_stream.py builds it).  Each is split into documents as kubectl
splits it (tests/k8s_stream.py): two manifests joined without a "---" line
are one document, which a duplicate key betrays.  --objects: the sources
create exactly these objects, no fewer and no more.

1. Every document against the Kubernetes API's schema
   (k8s/schema/kubernetes-1.22.json, made by tests/k8s_schema.py): the
   fields, their types, the required ones; a field the API does not know
   is an error, as the API server's strict field validation makes it.
2. The "restricted" Pod Security Standard (kubernetes.io/docs/concepts/
   security/pod-security-standards), which admission enforces and no schema
   says, for every pod template: the baseline's rules (no host namespaces,
   host paths or host ports, not privileged, no unsafe sysctls, seccomp and
   AppArmor not unconfined, the default /proc mount, no custom SELinux user
   or role) and the restricted ones: only configMap, csi, downwardAPI,
   emptyDir, ephemeral, persistentVolumeClaim, projected and secret
   volumes; allowPrivilegeEscalation false; runAsNonRoot true and
   runAsUser not 0; seccomp RuntimeDefault or Localhost; every capability
   dropped (ALL), none added but NET_BIND_SERVICE.
3. What a kubelet refuses at run time: runAsNonRoot needs a numeric
   runAsUser, the image's USER (the Containerfile's), itself numeric.  (A
   kubelet refuses runAsNonRoot with a user given by name: "container has
   runAsNonRoot and image has non-numeric user".)

Prints a line per document and per rule; exits 1 when any fails.  Needs
python3-yaml and python3-jsonschema (ci/install-deps.sh).
"""
import json
import os
import re
import sys

import jsonschema
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_stream  # noqa: E402

RESTRICTED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                      "projected", "secret"}
SAFE_SYSCTLS = {"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
                "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
                "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
                "net.ipv4.tcp_keepalive_probes"}
SELINUX_TYPES = {None, "", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"}


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


def security_errors(pod, image_uid, annotations):
    """The kubelet's and the restricted Pod Security Standard's refusals."""
    errs = []
    psc = pod.get("securityContext") or {}
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(key):
            errs.append(f"{key}: true (baseline: no host namespaces)")
    for v in pod.get("volumes") or []:
        kinds = set(v) - {"name"}
        if not kinds <= RESTRICTED_VOLUMES:
            errs.append(f"volume {v.get('name')}: {', '.join(sorted(kinds - RESTRICTED_VOLUMES))} "
                        f"(restricted: only {', '.join(sorted(RESTRICTED_VOLUMES))})")
    for sc in (psc.get("sysctls") or []):
        if sc.get("name") not in SAFE_SYSCTLS:
            errs.append(f"sysctl {sc.get('name')}: not a safe sysctl (baseline)")
    for k, v in (annotations or {}).items():
        if k.startswith("container.apparmor.security.beta.kubernetes.io/") and v not in ("runtime/default",) \
                and not v.startswith("localhost/"):
            errs.append(f"annotation {k}: {v} (baseline: AppArmor not unconfined)")
    pod_seccomp = (psc.get("seccompProfile") or {}).get("type")
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
        if csc.get("privileged"):
            errs.append(f"container {name}: privileged (baseline)")
        if (csc.get("windowsOptions") or {}).get("hostProcess") or \
                (psc.get("windowsOptions") or {}).get("hostProcess"):
            errs.append(f"container {name}: hostProcess (baseline)")
        if csc.get("procMount", "Default") != "Default":
            errs.append(f"container {name}: procMount {csc.get('procMount')} (baseline: Default)")
        for se in (psc.get("seLinuxOptions") or {}, csc.get("seLinuxOptions") or {}):
            if se.get("type") not in SELINUX_TYPES or se.get("user") or se.get("role"):
                errs.append(f"container {name}: seLinuxOptions {se} (baseline)")
        seccomp = (csc.get("seccompProfile") or {}).get("type", pod_seccomp)
        if seccomp not in ("RuntimeDefault", "Localhost"):
            errs.append(f"container {name}: seccompProfile {seccomp or 'unset'} (restricted: RuntimeDefault "
                        f"or Localhost, on the pod or every container)")
        caps = csc.get("capabilities") or {}
        if "ALL" not in (caps.get("drop") or []):
            errs.append(f"container {name}: capabilities do not drop ALL (restricted)")
        added = set(caps.get("add") or []) - {"NET_BIND_SERVICE"}
        if added:
            errs.append(f"container {name}: capabilities add {', '.join(sorted(added))} "
                        f"(restricted: only NET_BIND_SERVICE)")
        for p in c.get("ports") or []:
            if p.get("hostPort"):
                errs.append(f"container {name}: hostPort {p['hostPort']} (baseline)")
    return errs


def pod_annotations(doc):
    if doc.get("kind") == "Pod":
        return (doc.get("metadata") or {}).get("annotations")
    return (((doc.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("annotations")


def sources(args):
    """(label, text or None, error) of each SOURCE argument."""
    i = 0
    while i < len(args):
        a = args[i]
        try:
            if a == "-k":
                i += 1
                yield f"-k {args[i]}", k8s_stream.build(args[i]), None
            elif a == "-":
                yield "(stdin)", sys.stdin.read(), None
            else:
                yield a, open(a).read(), None
        except (IndexError, OSError, ValueError, yaml.YAMLError) as e:
            yield a, None, " ".join(str(e).split())
        i += 1


def main():
    args = sys.argv[1:]
    objects = None
    if "--objects" in args:
        k = args.index("--objects")
        objects = set(args[k + 1].split(",")) if k + 1 < len(args) else set()
        del args[k:k + 2]
    if len(args) < 3:
        sys.exit("usage: k8s_check.py SCHEMA.json CONTAINERFILE [--objects KIND/NAME,...] (MANIFEST | - | -k DIR)...")
    schema = json.load(open(args[0]))
    bad = 0

    user = containerfile_user(args[1])
    m = re.fullmatch(r"(\d+)(?::(\d+))?", user or "")
    image_uid = int(m.group(1)) if m else None
    if not m:
        print(f"FAIL {args[1]}: USER {user!r} is not numeric (uid or uid:gid): "
              f"a pod with runAsNonRoot cannot start from it")
        bad += 1
    elif image_uid == 0:
        print(f"FAIL {args[1]}: USER {user} is root")
        bad += 1
    else:
        print(f"ok   {args[1]}: USER {user}, numeric and not root")

    created = []
    for path, text, err in sources(args[2:]):
        if err is None:
            try:
                docs = k8s_stream.load(text)
            except yaml.YAMLError as e:
                err = "not YAML as kubectl reads it: " + " ".join(str(e).split())
        if err is not None:
            print(f"FAIL {path}: {err}")
            bad += 1
            continue
        for i, (line, doc) in enumerate(docs):
            what = f"{path}[{i}] {k8s_stream.name_of(doc)}"
            if doc.get("kind") == "Kustomization":
                print(f"ok   {what}: a kustomization, checked with -k")
                continue
            created.append(k8s_stream.name_of(doc))
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
            serrs = security_errors(pod, image_uid, pod_annotations(doc))
            for e in serrs:
                print(f"FAIL {what}: securityContext: {e}")
            bad += len(serrs)
            if not serrs:
                print(f"ok   {what}: the restricted Pod Security Standard: runAsNonRoot with numeric runAsUser "
                      f"{(pod.get('securityContext') or {}).get('runAsUser')}, the image's; no privilege "
                      f"escalation; capabilities dropped; seccomp RuntimeDefault; volumes "
                      f"{', '.join(sorted({k for v in pod.get('volumes') or [] for k in v if k != 'name'}))}")
    if objects is not None:
        # a generated ConfigMap's name ends in a hash of its content
        got = {re.sub(r"^(ConfigMap/.*)-[0-9a-z]{10}$", r"\1", o) for o in created}
        if got != objects or len(created) != len(objects):
            print(f"FAIL the objects created: {', '.join(created) or 'none'}; wanted {', '.join(sorted(objects))}")
            bad += 1
        else:
            print(f"ok   the objects created: {', '.join(created)}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
