#!/usr/bin/env bash
# Makes sure system tools the tests or the stack need are present:
# installs them with apt-get when missing and running as root, otherwise
# fails naming the Debian package. Usage: ensure-tools.sh tool[:package] ...
# A tool `py.<module>` is a module of Debian's own /usr/bin/python3 (python3-websockets).
set -euo pipefail
missing=()
for spec in "$@"; do
  tool=${spec%%:*}
  package=${spec#*:}
  if [[ $tool == py.* ]]; then
    /usr/bin/python3 -c "import ${tool#py.}" >/dev/null 2>&1 || missing+=("$package")
    continue
  fi
  command -v "$tool" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing: ${missing[*]}"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "missing system packages: ${missing[*]} — install them (e.g. sudo apt-get install -y ${missing[*]})" >&2
  exit 1
fi
