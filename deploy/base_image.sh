#!/usr/bin/env bash
# The image's base, built from the Debian package registry only: Debian 12 (bookworm), minbase,
# with Python 3.11 (python3, python3-venv) and CA certificates, security updates applied.
# It stands in for python:3.11-slim where Docker Hub cannot be reached (deploy/Dockerfile:
# BASE). Needs root, debootstrap (apt-get install debootstrap) and a Docker engine.
#
#   deploy/base_image.sh [TAG]       # default finchunk-base:bookworm
#
# Environment: DEBIAN_MIRROR (default http://deb.debian.org/debian), DEBIAN_SECURITY_MIRROR.
set -euo pipefail

TAG=${1:-finchunk-base:bookworm}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

command -v debootstrap >/dev/null || { echo "base_image.sh: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "base_image.sh: debootstrap needs root" >&2; exit 2; }

ROOTFS=$(mktemp -d /tmp/finchunk-rootfs.XXXXXX)
chmod 755 "$ROOTFS"   # apt downloads as _apt inside the chroot
cleanup() {
    for m in proc dev/pts dev sys; do mountpoint -q "$ROOTFS/$m" && umount -l "$ROOTFS/$m"; done
    rm -rf "$ROOTFS"
}
trap cleanup EXIT

debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
    bookworm "$ROOTFS" "$MIRROR"

# security and point-release updates, as the python:3.11-slim images carry them
cat > "$ROOTFS/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb $SECURITY bookworm-security main
EOF
mount -t proc proc "$ROOTFS/proc"
chroot "$ROOTFS" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    sh -c 'apt-get update -q && apt-get upgrade -y -q && apt-get clean && rm -rf /var/lib/apt/lists/*'
umount "$ROOTFS/proc"
# what a container image does not need: docs, man pages, the package cache, logs
rm -rf "$ROOTFS"/usr/share/doc/* "$ROOTFS"/usr/share/man/* "$ROOTFS"/var/cache/apt/*.bin \
       "$ROOTFS"/var/log/*.log "$ROOTFS"/var/log/apt/* "$ROOTFS"/tmp/*

tar --numeric-owner -C "$ROOTFS" -c . | docker import \
    --change 'ENV LANG=C.UTF-8' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["python3"]' \
    --message "debootstrap bookworm minbase + python3, python3-venv, ca-certificates" \
    - "$TAG"
docker image inspect --format "base image $TAG: {{.Size}} bytes" "$TAG"
