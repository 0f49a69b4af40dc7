#!/bin/sh
# Install what tracesim needs on Debian 12 and build it in this directory.
# Safe to run again: it only installs what is missing and rebuilds what changed.
set -e
cd "$(dirname "$0")"
PKGS="build-essential autoconf automake libtool pkg-config libglib2.0-dev libjson-glib-dev libpcre2-dev libcairo2-dev librsvg2-dev zlib1g-dev \
libsimgrid-dev simgrid libotf2-trace-dev otf2-tools libcmocka-dev mpich libmpich-dev \
openmpi-bin libopenmpi-dev gfortran libelf-dev libgoogle-perftools-dev python3 time clang libclang-rt-dev slurm-wlm munge \
chromium"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure ${CONFIGURE_FLAGS:-}
make -j2
