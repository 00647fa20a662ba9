#!/usr/bin/env bash
# Installs Debian's chromium, which the dashboard's end-to-end test drives headless (make browser).
set -euo pipefail
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
echo "installing chromium (apt) for the dashboard's browser test"
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
command -v chromium
