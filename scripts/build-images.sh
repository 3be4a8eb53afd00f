#!/usr/bin/env bash
# Builds the api, operator and agent-pod images from images/<name>.Dockerfile with the repository
# root as build context, using docker, podman or buildah (the first that works).
#
#   scripts/build-images.sh [--registry REGISTRY] [--tag TAG] [--push] [api|operator|agent-pod ...]
#
# Images are named <REGISTRY>/<name>:<TAG>; REGISTRY defaults to "browser-agents" and TAG to the
# chart's appVersion, which is the tag the chart deploys by default.
# Environment: CONTAINER_BUILDER=docker|podman|buildah picks the tool; NODE_IMAGE overrides the
# base image (e.g. pinned by digest).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
chart_yaml="$repo_root/charts/browser-agents/Chart.yaml"
all_images=(api operator agent-pod)

usage() {
  sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

registry="browser-agents"
tag=""
push=false
images=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --registry) registry="${2:?--registry needs a value}"; shift 2 ;;
    --tag) tag="${2:?--tag needs a value}"; shift 2 ;;
    --push) push=true; shift ;;
    -h|--help) usage; exit 0 ;;
    api|operator|agent-pod) images+=("$1"); shift ;;
    *) echo "build-images: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[[ ${#images[@]} -gt 0 ]] || images=("${all_images[@]}")
if [[ -z "$tag" ]]; then
  tag="$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$chart_yaml")"
  [[ -n "$tag" ]] || { echo "build-images: no appVersion in $chart_yaml; pass --tag" >&2; exit 1; }
fi

works() { command -v "$1" >/dev/null 2>&1 && "$@" >/dev/null 2>&1; }
builder="${CONTAINER_BUILDER:-}"
if [[ -z "$builder" ]]; then
  if works docker info; then builder=docker
  elif works podman info; then builder=podman
  elif works buildah version; then builder=buildah
  else
    echo "build-images: no working container builder found." >&2
    if command -v docker >/dev/null 2>&1; then
      echo "docker is installed but 'docker info' fails: is its daemon running and reachable?" >&2
    fi
    echo "Install one of docker (with a running daemon), podman or buildah, or set CONTAINER_BUILDER." >&2
    exit 1
  fi
fi

build_args=()
[[ -z "${NODE_IMAGE:-}" ]] || build_args+=(--build-arg "NODE_IMAGE=$NODE_IMAGE")

for name in "${images[@]}"; do
  dockerfile="images/$name.Dockerfile"
  reference="$registry/$name:$tag"
  echo "build-images: $builder builds $reference from $dockerfile" >&2
  cd "$repo_root"
  case "$builder" in
    # BuildKit reads images/<name>.Dockerfile.dockerignore by itself.
    docker) DOCKER_BUILDKIT=1 docker build "${build_args[@]}" -f "$dockerfile" -t "$reference" . ;;
    podman) podman build "${build_args[@]}" --ignorefile "$dockerfile.dockerignore" -f "$dockerfile" -t "$reference" . ;;
    buildah) buildah build "${build_args[@]}" --ignorefile "$dockerfile.dockerignore" -f "$dockerfile" -t "$reference" . ;;
    *) echo "build-images: unknown CONTAINER_BUILDER '$builder' (docker, podman or buildah)" >&2; exit 2 ;;
  esac
  if $push; then
    case "$builder" in
      docker) docker push "$reference" ;;
      podman) podman push "$reference" ;;
      buildah) buildah push "$reference" ;;
    esac
  fi
done
