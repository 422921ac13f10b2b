#!/usr/bin/env bash
# bin/preflight.sh: the first step of `npm test` (docs/testing.md), before the type-check, lint and
# tests: the full suite drives two Debian packages, chromium (/usr/bin/chromium, the web tests;
# never a downloaded browser) and postgresql (the second logstore driver; test/global-setup.ts
# starts a throwaway cluster when COOKWALA_TEST_PG names none). When both are there it says nothing.
# When one is missing: as root with apt-get, it installs what is missing as .ci/run does; otherwise
# it stops within seconds, exit 1, with the one command to run. `npm run test:unit` needs neither.
# Where it looks can be moved for its own test (test/preflight.test.ts): COOKWALA_PREFLIGHT_CHROMIUM,
# COOKWALA_PREFLIGHT_PG_ROOT, and COOKWALA_PREFLIGHT_NO_INSTALL=1 (never install, as a non-root user).
set -euo pipefail

chromium=${COOKWALA_PREFLIGHT_CHROMIUM:-/usr/bin/chromium}
pg_root=${COOKWALA_PREFLIGHT_PG_ROOT:-/usr/lib/postgresql}
missing=()
[ -x "$chromium" ] || missing+=(chromium)
if [ -z "${COOKWALA_TEST_PG:-}" ] && ! ls "$pg_root"/*/bin/pg_ctl >/dev/null 2>&1; then
  missing+=(postgresql)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && [ -z "${COOKWALA_PREFLIGHT_NO_INSTALL:-}" ] && command -v apt-get >/dev/null 2>&1; then
  echo "preflight: installing ${missing[*]} (Debian packages the full suite drives)" >&2
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  exit 0
fi

{
  echo "preflight: npm test needs Debian's ${missing[*]}, missing here. Install, then run npm test again:"
  echo ""
  echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}"
  echo ""
  echo "(or, as root: bash .ci/run, which installs both and runs the whole suite as CI does;"
  echo " or set COOKWALA_TEST_PG to a PostgreSQL URL. npm run test:unit needs neither.)"
} >&2
exit 1
