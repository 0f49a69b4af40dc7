#!/bin/sh
# Install what tracesim needs on Debian 12 and build it in this directory.
# Safe to run again: it only installs what is missing (apt-get is not called
# at all when nothing is) and rebuilds what changed.
#   sh setup.sh                  install what is missing, then build
#   sh setup.sh --packages-only  install what is missing, build nothing
# Every name below is a Debian 12 package (apt-cache policy NAME shows a
# candidate): SimGrid's tools (smpirun, tesh) come with libsimgrid-dev, and
# there is no package "simgrid", which made every run call apt-get.
set -e
case ${1:-} in
  "") build=yes ;;
  --packages-only) build=no ;;
  -h|--help) sed -n '2,6s/^# \{0,1\}//p' "$0"; exit 0 ;;
  *) echo "setup.sh: unknown argument '$1' (--packages-only or nothing)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")"
PKGS="build-essential autoconf automake libtool pkg-config libglib2.0-dev libjson-glib-dev libpcre2-dev libcairo2-dev librsvg2-dev zlib1g-dev nettle-dev \
libsimgrid-dev libotf2-trace-dev otf2-tools libcmocka-dev mpich libmpich-dev \
openmpi-bin libopenmpi-dev gfortran libelf-dev libgoogle-perftools-dev python3 time clang libclang-rt-dev libomp-dev slurm-wlm munge \
chromium"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup.sh: installing$missing"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
[ "$build" = yes ] || exit 0
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure ${CONFIGURE_FLAGS:-}
make -j2
