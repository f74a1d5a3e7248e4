"""Drives the control center with Debian's python3-kubernetes dynamic client.

Usage: dynamic_client.py KUBECONFIG NAMESPACE CACHE_FILE

Each check prints one JSON line: {"row": <operation>, "ok": bool, "detail": str}. The vitest
side (python.test.ts) asserts every row and records it for the README's compatibility table.
A failing check never stops the others.
"""
import json
import sys
import threading
import traceback

from kubernetes import config, dynamic, watch
from kubernetes.client import api_client
from kubernetes.client.rest import ApiException

kubeconfig, ns, cache_file = sys.argv[1], sys.argv[2], sys.argv[3]
client = dynamic.DynamicClient(api_client.ApiClient(configuration=config.load_kube_config(config_file=kubeconfig)), cache_file=cache_file)
results = []


def check(row):
    def wrap(fn):
        try:
            fn()
            out = {"row": row, "ok": True, "detail": ""}
        except ApiException as e:
            out = {"row": row, "ok": False, "detail": "ApiException %s: %s" % (e.status, body_text(e) if e.body else e.reason)}
        except AssertionError as e:
            out = {"row": row, "ok": False, "detail": str(e)}
        except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the run
            out = {"row": row, "ok": False, "detail": "%s: %s | %s" % (type(e).__name__, e, traceback.format_exc().splitlines()[-3].strip())}
        print(json.dumps(out), flush=True)
        return fn
    return wrap


def body_text(e):
    return e.body.decode() if isinstance(e.body, bytes) else str(e.body)


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def hosted_cluster(name, labels=None):
    def np(service):
        return {"service": service, "servicePublishingStrategy": {"type": "NodePort", "nodePort": {"address": "10.19.138.32"}}}
    return {
        "apiVersion": "hypershift.openshift.io/v1beta1",
        "kind": "HostedCluster",
        "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
        "spec": {
            "release": {"image": "quay.io/openshift-release-dev/ocp-release:4.14.38-x86_64"},
            "pullSecret": {"name": "pull-secret"},
            "dns": {"baseDomain": "example.com"},
            "networking": {"clusterNetwork": [{"cidr": "10.132.0.0/14"}], "serviceNetwork": [{"cidr": "172.31.0.0/16"}], "networkType": "OVNKubernetes"},
            "platform": {"type": "None"},
            "services": [np(s) for s in ["APIServer", "OAuthServer", "Konnectivity", "Ignition"]],
        },
    }


namespaces = client.resources.get(api_version="v1", kind="Namespace")
secrets = client.resources.get(api_version="v1", kind="Secret")
configmaps = client.resources.get(api_version="v1", kind="ConfigMap")
hcs = client.resources.get(api_version="hypershift.openshift.io/v1beta1", kind="HostedCluster")
state = {}


@check("api-resources")
def _():
    expect(hcs.namespaced and hcs.name == "hostedclusters", "HostedCluster resource: %s" % hcs)
    expect("scale" not in [s for s in getattr(hcs, "subresources", {})], "HostedCluster has no scale subresource")
    nps = client.resources.get(api_version="hypershift.openshift.io/v1beta1", kind="NodePool")
    expect("scale" in nps.subresources and "status" in nps.subresources, "NodePool subresources: %s" % list(nps.subresources))


@check("create namespace")
def _():
    got = namespaces.create(body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    expect(got.status.phase == "Active", "phase %s" % got.status.phase)


@check("create secret generic")
def _():
    got = secrets.create(namespace=ns, body={"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "pull-secret"}, "type": "kubernetes.io/dockerconfigjson", "stringData": {".dockerconfigjson": "{}"}})
    expect(got.data[".dockerconfigjson"] == "e30=", "data %s" % got.data)


@check("create -f (custom resource)")
def _():
    a = hcs.create(body=hosted_cluster("py-a", {"env": "prod", "tier": "gold"}))
    hcs.create(body=hosted_cluster("py-b", {"env": "dev"}))
    expect(a.metadata.uid and a.metadata.generation == 1, "metadata %s" % a.metadata)
    try:
        hcs.create(body=hosted_cluster("py-a"))
        raise AssertionError("a second create succeeded")
    except ApiException as e:
        expect(e.status == 409 and json.loads(body_text(e))["message"] == 'hostedclusters.hypershift.openshift.io "py-a" already exists', "duplicate create: %s %s" % (e.status, e.body))


@check("get -o json")
def _():
    got = hcs.get(name="py-a", namespace=ns)
    expect(got.spec.platform.type == "None" and got.metadata.labels.env == "prod", "object %s" % got)
    try:
        hcs.get(name="nope", namespace=ns)
        raise AssertionError("got a missing object")
    except ApiException as e:
        expect(e.status == 404, "status %s" % e.status)


@check("get -l (in, notin, !key)")
def _():
    def sel(s):
        return sorted(i.metadata.name for i in hcs.get(namespace=ns, label_selector=s).items)
    expect(sel("env in (prod,dev)") == ["py-a", "py-b"], "in: %s" % sel("env in (prod,dev)"))
    expect(sel("env notin (prod)") == ["py-b"], "notin: %s" % sel("env notin (prod)"))
    expect(sel("!tier") == ["py-b"], "!tier: %s" % sel("!tier"))


@check("get --field-selector")
def _():
    got = hcs.get(namespace=ns, field_selector="metadata.name=py-b")
    expect([i.metadata.name for i in got.items] == ["py-b"], "items %s" % [i.metadata.name for i in got.items])


@check("patch --type=merge")
def _():
    got = hcs.patch(name="py-a", namespace=ns, body={"metadata": {"labels": {"patched": "yes"}}}, content_type="application/merge-patch+json")
    expect(got.metadata.labels.patched == "yes" and got.metadata.generation == 1, "metadata %s" % got.metadata)
    got = hcs.patch(name="py-a", namespace=ns, body={"spec": {"release": {"image": "quay.io/openshift-release-dev/ocp-release:4.14.39-x86_64"}}}, content_type="application/merge-patch+json")
    expect(got.metadata.generation == 2, "generation %s" % got.metadata.generation)


@check("patch --type=json")
def _():
    got = hcs.patch(name="py-a", namespace=ns, body=[{"op": "add", "path": "/metadata/annotations", "value": {"by": "python"}}], content_type="application/json-patch+json")
    expect(got.metadata.annotations.by == "python", "annotations %s" % got.metadata.annotations)


@check("patch --type=strategic on a custom resource (refused)")
def _():
    # The dynamic client's default patch type is a strategic merge patch, which custom resources refuse.
    try:
        hcs.patch(name="py-a", namespace=ns, body={"metadata": {"labels": {"x": "y"}}})
        raise AssertionError("a strategic merge patch of a custom resource succeeded")
    except ApiException as e:
        body = json.loads(body_text(e))
        expect(e.status == 415 and body["reason"] == "UnsupportedMediaType", "status %s %s" % (e.status, e.body))
        want = "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
        expect(body["message"] == want, 'server message: got "%s"' % body["message"])


@check("update with a stale resourceVersion (409)")
def _():
    cur = hcs.get(name="py-b", namespace=ns).to_dict()
    cur["metadata"]["labels"]["step"] = "1"
    hcs.replace(body=cur)
    cur["metadata"]["labels"]["step"] = "2"
    try:
        hcs.replace(body=cur)
        raise AssertionError("a stale update succeeded")
    except ApiException as e:
        expect(e.status == 409 and "the object has been modified" in body_text(e), "status %s %s" % (e.status, e.body))


@check("get -w")
def _():
    listed = hcs.get(namespace=ns)
    rv = listed.metadata.resourceVersion
    # Replay from the list's resourceVersion: the change below arrives as MODIFIED.
    def touch():
        hcs.patch(name="py-b", namespace=ns, body={"metadata": {"annotations": {"touched": "yes"}}}, content_type="application/merge-patch+json")
    threading.Timer(0.5, touch).start()
    w = watch.Watch()
    seen = []
    for ev in hcs.watch(namespace=ns, resource_version=rv, timeout=10, watcher=w):
        seen.append((ev["type"], ev["object"].metadata.name))
        if ev["type"] == "MODIFIED" and ev["object"].metadata.name == "py-b":
            w.stop()
    expect(("MODIFIED", "py-b") in seen, "events %s" % seen)
    # Without a resourceVersion: ADDED for what exists (here one object, by field selector).
    w = watch.Watch()
    names = []
    for ev in hcs.watch(namespace=ns, field_selector="metadata.name=py-a", timeout=5, watcher=w):
        names.append((ev["type"], ev["object"].metadata.name))
        w.stop()
    expect(names == [("ADDED", "py-a")], "watch with a field selector: %s" % names)


@check("watch: 410 Expired for a compacted resourceVersion")
def _():
    first = configmaps.create(namespace=ns, body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c0"}, "data": {"i": "0"}})
    for i in range(1, 30):
        configmaps.patch(name="c0", namespace=ns, body={"data": {"i": str(i)}}, content_type="application/merge-patch+json")
    try:
        for _ in configmaps.watch(namespace=ns, resource_version=first.metadata.resourceVersion, timeout=5):
            pass
        raise AssertionError("a watch from a compacted resourceVersion did not fail")
    except ApiException as e:
        expect(e.status == 410 and "Expired" in str(e.reason), "status %s reason %s" % (e.status, e.reason))


@check("apply --server-side")
def _():
    # python3-kubernetes 22 cannot serialise a dict as application/apply-patch+yaml; a JSON string is YAML.
    body = hosted_cluster("py-ssa", {"env": "prod"})
    got = hcs.server_side_apply(body=json.dumps(body), name="py-ssa", namespace=ns, field_manager="python-script")
    mf = [m for m in (got.metadata.managedFields or []) if m.manager == "python-script" and m.operation == "Apply"]
    expect(mf, "no managedFields entry of manager python-script, operation Apply: %s" % got.metadata.managedFields)
    body["metadata"]["labels"] = {}
    got = hcs.server_side_apply(body=json.dumps(body), name="py-ssa", namespace=ns, field_manager="python-script")
    expect(not (got.metadata.labels or {}).get("env"), "a label no longer applied is kept: %s" % got.metadata.labels)


@check("delete (finalizers, --wait)")
def _():
    hcs.patch(name="py-b", namespace=ns, body={"metadata": {"finalizers": ["example.com/hold"]}}, content_type="application/merge-patch+json")
    got = hcs.delete(name="py-b", namespace=ns)
    expect(got.metadata.deletionTimestamp, "delete answered %s" % got)
    hcs.patch(name="py-b", namespace=ns, body={"metadata": {"finalizers": None}}, content_type="application/merge-patch+json")
    try:
        hcs.get(name="py-b", namespace=ns)
        raise AssertionError("still there after its finalizer was removed")
    except ApiException as e:
        expect(e.status == 404, "status %s" % e.status)
    got = hcs.delete(name="py-a", namespace=ns)
    expect(got.status == "Success" or got.kind == "HostedCluster", "delete answered %s" % got)
