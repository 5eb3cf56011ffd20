# Sourced by the scripts/ensure-*.sh installers that fill a folder of the cache outside the
# repository (~/.cache/n8n-nodes-voice-messaging; VOICE_MESSAGING_CACHE moves it): where the cache
# is, and a folder in it filled once, by one installer at a time.
#
#   if cache_fill_needed "$dir" [stamp]; then … install into "$dir" …; cache_filled "$dir" [stamp]; fi
#
# A folder is complete when its .complete file holds `stamp` (empty by default): an installer
# whose versions are not all in the folder's name puts them in the stamp, and a change of them
# fills the folder again.
CACHE="${VOICE_MESSAGING_CACHE:-$HOME/.cache/n8n-nodes-voice-messaging}"
mkdir -p "$CACHE"

# cache_complete <folder> [stamp]: whether <folder> was filled (with that stamp).
cache_complete() {
  [ -f "$1/.complete" ] && [ "$(cat "$1/.complete")" = "${2:-}" ]
}

# cache_fill_needed <folder> [stamp]: false when <folder> is complete. Else true, with <folder>
# empty and its lock (<folder>.lock, on fd 9 until the installer exits) held.
cache_fill_needed() {
  if cache_complete "$@"; then return 1; fi
  # Test lanes (or two checkouts) started at once may both get here: one installs, the others wait
  # for it on this lock (no time limit: a first install takes minutes) and then find it complete.
  exec 9>"$1.lock"
  flock 9
  if cache_complete "$@"; then return 1; fi
  rm -rf "$1"
  mkdir -p "$1" || exit 1
}

# cache_filled <folder> [stamp]: marks <folder> complete (last, once everything is in it).
cache_filled() {
  printf '%s' "${2:-}" >"$1/.complete"
}
