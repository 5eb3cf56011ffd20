#!/usr/bin/env bash
# Makes sure Redis and PostgreSQL are installed for the queue-mode suite (test/queue), from
# Debian's packages when missing, and prints where they are as the last two lines:
#   redis=<path of redis-server>
#   postgres=<folder with initdb, postgres, pg_isready and createdb>
# Nothing is started here and no service is enabled: the suite runs its own servers on loopback
# in temporary folders and stops them afterwards.
set -euo pipefail

find_redis() { command -v redis-server 2>/dev/null || true; }
# The programs test/queue/services.mjs runs, all from one folder (one PostgreSQL version).
pg_programs=(initdb postgres pg_isready createdb)
has_pg_programs() {
  local program
  for program in "${pg_programs[@]}"; do [ -x "$1/$program" ] || return 1; done
}
find_postgres() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if has_pg_programs "$dir"; then echo "$dir"; return 0; fi
  done
  if command -v initdb >/dev/null 2>&1 && has_pg_programs "$(dirname "$(command -v initdb)")"; then
    dirname "$(command -v initdb)"
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
