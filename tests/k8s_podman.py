#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/k8s_podman.py - run a Job's pod template with podman, as a kubelet
would run it, from what "kubectl apply" was given (tests/k8s_kubectl.py's
state directory): "make check-fleet" (tests/fleet/check-fleet.sh).

    k8s_podman.py STATE JOB IMAGE WORKDIR [--index N] [--pvc CLAIM=HOSTDIR]...
        [--mount HOSTDIR=PATH]... [--env NAME=VALUE]... [--sub OLD=>NEW]...
        [--name NAME] [--probe] [--print]

Every setting comes from the manifest, none is typed here:
  - the pod's and the container's securityContext: runAsUser and
    runAsGroup (--user), fsGroup and supplementalGroups (--group-add),
    allowPrivilegeEscalation false (no-new-privileges), capabilities
    (--cap-drop, --cap-add), seccompProfile (RuntimeDefault: podman's
    default profile; Localhost and Unconfined refused), readOnlyRootFilesystem;
    runAsNonRoot refuses a user that is not a number other than 0, as the
    kubelet does;
  - the env: value, and configMapKeyRef from the ConfigMaps applied;
    JOB_COMPLETION_INDEX for an Indexed Job (--index);
  - the volumes: a persistentVolumeClaim is a host directory (--pvc), made
    writable by fsGroup as the kubelet makes a volume that supports
    ownership management; a configMap or secret is a read-only copy of
    what "kubectl create" was given, its files owned by root and fsGroup
    with the volume's defaultMode (an optional one absent is empty);
  - command and args (--sub OLD=>NEW changes a fixed string of the args'
    first element that must occur: the module, the duration).
--env adds or replaces a variable (a test's knobs: the mock's service
time); --mount adds a host directory that is not in the manifest (a test's
SoftHSM token: a network HSM keeps its state on the HSM).  The container
has no network but its own loopback (--network none).  --probe runs, with
the same settings, a shell that prints the process's identity and limits
as the kernel sees them (/proc/self/status) and the mounted files, instead
of the pod's command.  --name names the container (default
hsmbench-fleet-JOB-INDEX-PID).  --print prints podman's arguments instead
of running.
"""
import json
import os
import shlex
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_stream  # noqa: E402

PROBE = ("grep -E '^(Uid|Gid|Groups|NoNewPrivs|Seccomp|CapEff|CapPrm|CapBnd):' /proc/self/status; "
         "for d in $(cat /proc/self/mounts | cut -d' ' -f2 | grep -E '^/(etc/hsm|results)'); do "
         "ls -ln \"$d\" | sed \"s|^|$d: |\"; done; env | grep -E '^(ChrystokiConfigurationPath|START|JOB_COMPLETION_INDEX)=' | sort")


def die(msg):
    sys.exit(f"k8s_podman.py: {msg}")


def pairs(values, sep):
    out = []
    for v in values:
        a, s, b = v.partition(sep)
        if not s:
            die(f"{v}: expected A{sep}B")
        out.append((a, b))
    return out


def parse(argv):
    if len(argv) < 4:
        die(__doc__.split("\n\n")[1])
    o = {"state": argv[0], "job": argv[1], "image": argv[2], "work": argv[3], "index": None,
         "pvc": [], "mount": [], "env": [], "sub": [], "probe": False, "print": False, "name": None}
    i = 4
    while i < len(argv):
        a = argv[i]
        if a in ("--probe", "--print"):
            o[a[2:]] = True
        elif a in ("--index", "--name", "--pvc", "--mount", "--env", "--sub") and i + 1 < len(argv):
            i += 1
            if a == "--index":
                o["index"] = int(argv[i])
            elif a == "--name":
                o["name"] = argv[i]
            else:
                o[a[2:]].append(argv[i])
        else:
            die(f"{a}: unknown option")
        i += 1
    return o


def volume_copy(o, kind, name, vol, fs_group, dest):
    """A configMap or secret volume: the files kubectl was given, as the
    kubelet writes them (root and fsGroup, defaultMode)."""
    src = os.path.join(o["state"], kind, name)
    os.makedirs(dest)
    os.chmod(dest, 0o755)
    if not os.path.isdir(src):
        if vol.get("optional"):
            return
        die(f"{kind} {name} was never created: the kubelet would leave the pod pending")
    mode = vol.get("defaultMode", 0o644)
    for f in sorted(os.listdir(src)):
        shutil.copyfile(os.path.join(src, f), os.path.join(dest, f))
        os.chown(os.path.join(dest, f), 0, fs_group if fs_group is not None else 0)
        os.chmod(os.path.join(dest, f), mode)


def main():
    o = parse(sys.argv[1:])
    objs = [obj for _, obj in k8s_stream.load(open(os.path.join(o["state"], "applied.yaml")).read())]
    jobs = [x for x in objs if x.get("kind") == "Job" and x["metadata"]["name"] == o["job"]]
    if len(jobs) != 1:
        die(f"Job {o['job']}: {len(jobs)} applied")
    job = jobs[-1]
    maps = {x["metadata"]["name"]: x.get("data") or {} for x in objs if x.get("kind") == "ConfigMap"}
    pod = job["spec"]["template"]["spec"]
    if len(pod.get("containers") or []) != 1 or pod.get("initContainers"):
        die("one container, no init containers: what this runner knows")
    c = pod["containers"][0]
    psc, csc = pod.get("securityContext") or {}, c.get("securityContext") or {}
    sc = dict(psc, **csc)

    args = ["run", "--rm", "--pull=never", "--network", "none",
            "--name", o["name"] or f"hsmbench-fleet-{o['job']}-{o['index'] or 0}-{os.getpid()}"]
    uid, gid = sc.get("runAsUser"), sc.get("runAsGroup")
    if sc.get("runAsNonRoot") and (not isinstance(uid, int) or uid == 0):
        die(f"runAsNonRoot with runAsUser {uid!r}: the kubelet refuses to start the container")
    if uid is not None:
        args += ["--user", f"{uid}:{gid}" if gid is not None else str(uid)]
    fs_group = psc.get("fsGroup")
    for g in ([fs_group] if fs_group is not None else []) + list(psc.get("supplementalGroups") or []):
        args += ["--group-add", str(g)]
    if sc.get("allowPrivilegeEscalation") is False:
        args += ["--security-opt", "no-new-privileges"]
    for cap in (csc.get("capabilities") or {}).get("drop") or []:
        args += ["--cap-drop", cap]
    for cap in (csc.get("capabilities") or {}).get("add") or []:
        args += ["--cap-add", cap]
    seccomp = (sc.get("seccompProfile") or {}).get("type")
    if seccomp not in (None, "RuntimeDefault"):
        die(f"seccompProfile {seccomp}: not what this runner knows")
    if sc.get("readOnlyRootFilesystem"):
        args.append("--read-only")

    env = {}
    if job["spec"].get("completionMode") == "Indexed":
        if o["index"] is None:
            die("an Indexed Job's pod needs --index")
        env["JOB_COMPLETION_INDEX"] = str(o["index"])
    for e in c.get("env") or []:
        if "value" in e:
            env[e["name"]] = e["value"]
            continue
        ref = (e.get("valueFrom") or {}).get("configMapKeyRef")
        if not ref:
            die(f"env {e['name']}: only value and configMapKeyRef are known here")
        if ref["name"] not in maps or ref["key"] not in maps[ref["name"]]:
            die(f"env {e['name']}: ConfigMap {ref['name']} key {ref['key']} was not applied")
        env[e["name"]] = maps[ref["name"]][ref["key"]]
    env.update(pairs(o["env"], "="))
    for k, v in sorted(env.items()):
        args += ["--env", f"{k}={v}"]

    vols = {v["name"]: v for v in pod.get("volumes") or []}
    pvcs = dict(pairs(o["pvc"], "="))
    shutil.rmtree(o["work"], ignore_errors=True)
    os.makedirs(o["work"])
    for m in c.get("volumeMounts") or []:
        v = vols[m["name"]]
        if "persistentVolumeClaim" in v:
            claim = v["persistentVolumeClaim"]["claimName"]
            if claim not in pvcs:
                die(f"volume {m['name']}: claim {claim} needs --pvc {claim}=HOSTDIR")
            if fs_group is not None:     # the kubelet's ownership management
                os.chown(pvcs[claim], -1, fs_group)
                os.chmod(pvcs[claim], 0o2775)
            args += ["--volume", f"{pvcs[claim]}:{m['mountPath']}:{'ro' if m.get('readOnly') else 'rw'}"]
        elif "configMap" in v or "secret" in v:
            kind = "configmap" if "configMap" in v else "secret"
            src = v.get("configMap") or v.get("secret")
            dest = os.path.join(o["work"], m["name"])
            volume_copy(o, kind, src.get("name") or src.get("secretName"), src, fs_group, dest)
            args += ["--volume", f"{dest}:{m['mountPath']}:ro"]
        else:
            die(f"volume {m['name']}: {sorted(set(v) - {'name'})}: not what this runner knows")
    for host, path in pairs(o["mount"], "="):
        args += ["--volume", f"{host}:{path}:rw"]

    cmd, cargs = list(c.get("command") or []), list(c.get("args") or [])
    for old, new in pairs(o["sub"], "=>"):
        if not cargs or old not in cargs[0]:
            die(f"the pod's args have no {old!r}")
        cargs[0] = cargs[0].replace(old, new)
    if o["probe"]:
        cmd, cargs = ["sh", "-c"], [PROBE]
    if cmd:
        args += ["--entrypoint", json.dumps(cmd)]
    args += [o["image"]] + cargs

    podman = shlex.split(os.environ.get("PODMAN", "podman"))
    if o["print"]:
        print(shlex.join(podman + args))
        return
    sys.stdout.flush()
    os.execvp(podman[0], podman + args)


if __name__ == "__main__":
    main()
