#!/usr/bin/env bash
# Makes sure Redis and PostgreSQL are installed for the queue-mode suite (test/queue), from
# Debian's packages when missing, and prints where they are as the last two lines:
#   redis=<path of redis-server>
#   postgres=<folder with initdb, pg_ctl and postgres>
# Nothing is started here and no service is enabled: the suite runs its own servers on loopback
# in temporary folders and stops them afterwards.
set -euo pipefail

find_redis() { command -v redis-server 2>/dev/null || true; }
find_postgres() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ]; then echo "$dir"; return 0; fi
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"; return 0
  fi
  return 0
}

redis="$(find_redis)"
postgres="$(find_postgres)"
missing=()
[ -n "$redis" ] || missing+=(redis-server)
[ -n "$postgres" ] || missing+=(postgresql)

if [ "${#missing[@]}" -gt 0 ]; then
  bash "$(dirname "$0")/apt-install.sh" "${missing[@]}"
  redis="$(find_redis)"
  postgres="$(find_postgres)"
fi

if [ -z "$redis" ] || [ -z "$postgres" ]; then
  echo "Redis or PostgreSQL is still missing after apt-get (redis=$redis postgres=$postgres)" >&2
  exit 1
fi
echo "redis=$redis"
echo "postgres=$postgres"
