#!/usr/bin/env bash
# `make image`: the finchunk image (deploy/Dockerfile) from reachable sources only.
#
#   1. the base: finchunk-base:bookworm from the Debian package registry (deploy/base_image.sh),
#      built once, unless FINCHUNK_BASE_IMAGE names another (python:3.11-slim where Docker Hub is
#      reachable)
#   2. torch: the CPU wheel of torch==2.13.0 into deploy/build/, as this machine's pip finds it
#      (`pip download torch==2.13.0`: pip prefers 2.13.0+cpu from its configured find-links over
#      PyPI's 2.13.0, which for Linux is the CUDA build, 2.7 GB with its nvidia-* wheels); only a
#      +cpu wheel is accepted. With TORCH_INDEX_URL set (e.g. https://download.pytorch.org/whl/cpu)
#      the image's pip takes torch from there instead.
#   3. the CA bundle the host's pip trusts (PIP_CERT / pip config global.cert), for a
#      TLS-inspecting proxy between the build and PyPI; the final image does not carry it
#   4. docker build, cached by layers: a code change rebuilds the code layers only
#
# Environment: FINCHUNK_IMAGE (default finchunk:0.1.0), FINCHUNK_BASE_IMAGE (default
# finchunk-base:bookworm), TORCH_INDEX_URL, FINCHUNK_IMAGE_EXTRAS (the project's extras in the
# image; default the Dockerfile's: postgres,s3,k8s,docker,baselines — add e.g. onnx,ocr),
# PYTHON (default python3: whose pip downloads torch).
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${FINCHUNK_IMAGE:-finchunk:0.1.0}
BASE=${FINCHUNK_BASE_IMAGE:-finchunk-base:bookworm}
PYTHON=${PYTHON:-python3}
BUILD=deploy/build
start=$(date +%s)

docker info >/dev/null 2>&1 || { echo "image.sh: no Docker engine answers (start dockerd, or apt-get install docker.io)" >&2; exit 2; }

if ! docker image inspect "$BASE" >/dev/null 2>&1; then
    case "$BASE" in
        finchunk-base:*) echo "image.sh: building the base $BASE from Debian packages (debootstrap)"
                         deploy/base_image.sh "$BASE" ;;
        *) docker pull "$BASE" ;;
    esac
fi

if [ -z "${TORCH_INDEX_URL:-}" ] && ! ls "$BUILD"/torch-2.13.0+cpu-*.whl >/dev/null 2>&1; then
    # the image's Python is 3.11 (Debian 12 / python:3.11-slim), whatever the host's
    "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
        --implementation cp --abi cp311 --platform "manylinux_2_28_$(uname -m)" -d "$BUILD" 'torch==2.13.0'
    if ! ls "$BUILD"/torch-2.13.0+cpu-*.whl >/dev/null 2>&1; then
        rm -f "$BUILD"/torch-2.13.0-*.whl
        echo "image.sh: pip found no CPU build of torch 2.13.0 here (PyPI's is the CUDA build)." \
             "Put torch-2.13.0+cpu-cp311-*.whl in $BUILD/, or set" \
             "TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu" >&2
        exit 2
    fi
fi

CERT=${PIP_CERT:-$("$PYTHON" -m pip config list 2>/dev/null | sed -n "s/^[a-z:]*\.cert='\(.*\)'$/\1/p" | head -1)}
if [ -n "$CERT" ] && [ -f "$CERT" ]; then
    cmp -s "$CERT" "$BUILD/ca.pem" || cp "$CERT" "$BUILD/ca.pem"   # unchanged: the layer cache holds
else
    rm -f "$BUILD/ca.pem"
fi

docker build -f deploy/Dockerfile -t "$IMAGE" --build-arg BASE="$BASE" \
    --build-arg TORCH_INDEX_URL="${TORCH_INDEX_URL:-}" \
    ${FINCHUNK_IMAGE_EXTRAS:+--build-arg EXTRAS="$FINCHUNK_IMAGE_EXTRAS"} .
echo "image.sh: $IMAGE built in $(( $(date +%s) - start )) s," \
     "$(docker image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}')"
