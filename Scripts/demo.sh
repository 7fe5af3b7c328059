#!/usr/bin/env bash
# The migration demo (`make demo`): the seed article's story on temporary device roots, narrated step by
# step with the devicectl commands it runs and their real output. Every claim the story makes is checked
# (✔/✘); the last line is a one-line verdict, and the exit status is 0 only if the story held.
#
# DEVICECTL picks the binary (default: devicectl on PATH). Needs bash, python3 (to read --json) and GNU date.
set -uo pipefail

DEVICECTL=${DEVICECTL:-devicectl}
case $DEVICECTL in */*) DEVICECTL=$(cd "$(dirname "$DEVICECTL")" && pwd)/$(basename "$DEVICECTL") ;; esac
APP=com.example.news
GROUP=group.com.example.news
MARKER=device-restoration-marker.txt

# Everything happens in a scratch directory, removed at the end; commands use paths relative to it.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/devicectl-demo.XXXXXX") || exit 1
trap 'cd / && rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

if [ -t 1 ]; then
    bold=$'\e[1m' dim=$'\e[2m' green=$'\e[32m' red=$'\e[31m' off=$'\e[0m'
else
    bold='' dim='' green='' red='' off=''
fi
failures=0

# step N TIME TITLE: a numbered step; TIME becomes the simulated clock (DEVICECTL_NOW) for its commands.
step() {
    export DEVICECTL_NOW=$2
    local when
    when=$(date -u -d "$2" '+%a %-d %b %Y, %H:%M:%S UTC')
    printf '\n%s%s. %s%s  %s[%s]%s\n' "$bold" "$1" "$3" "$off" "$dim" "$when" "$off"
}
# say TEXT...: narration, one line per argument.
say() { printf '   %s\n' "$@"; }
# run ARGS...: shows `$ devicectl ARGS` as typed, runs it, shows its output (stdout and stderr) indented.
# Keeps the output in $OUT and the exit status in $STATUS for the checks.
run() {
    printf '   %s$ devicectl %s%s\n' "$bold" "$*" "$off"
    OUT=$("$DEVICECTL" "$@" 2>&1)
    STATUS=$?
    [ -n "$OUT" ] && while IFS= read -r line; do printf '     %s\n' "$line"; done <<<"$OUT"
    [ "$STATUS" -eq 0 ] || printf '     %s(exit status %d)%s\n' "$red" "$STATUS" "$off"
    return 0
}
# quietly ARGS...: runs devicectl without showing it (for the checks' --json reads); prints its stdout.
quietly() { "$DEVICECTL" "$@" 2>/dev/null; }
# field EXPR: reads JSON on stdin and prints the Python expression EXPR of it (d is the object); empty on error.
field() { python3 -c 'import json, sys
try: print(eval(sys.argv[1], {"d": json.load(sys.stdin)}))
except Exception: pass' "$1" 2>/dev/null; }
# check DESCRIPTION COMMAND...: runs COMMAND (a test) and prints ✔ or ✘ with DESCRIPTION.
check() {
    local description=$1
    shift
    if "$@"; then
        printf '   %s✔ %s%s\n' "$green" "$description" "$off"
    else
        printf '   %s✘ %s%s\n' "$red" "$description" "$off"
        failures=$((failures + 1))
    fi
}
is() { [ "$1" = "$2" ]; }

printf '%sdevicectl demo: moving to a new iPhone, and the widget that brings the user back%s\n' "$bold" "$off"
say "Two simulated iPhones live in a scratch directory ($WORK)." \
    "Time is simulated: each step's commands run at the time in its heading (DEVICECTL_NOW)."

# MARK: - The old phone
step 1 2026-11-30T20:00:00Z "The old phone: the News app and its widget on the home screen"
run init old-phone
run install old-phone --app "$APP" --group "$GROUP"
run widget add old-phone --app "$APP" --size medium
say "The home screen is SpringBoard's own IconState.plist: the app's icon and a flat WidgetKit widget dict" \
    "(widgetIdentifier = the kind, bundleIdentifier = the extension, containerBundleIdentifier = the app)."
run widget list old-phone

step 2 2026-12-01T08:00:00Z "The user opens News on the old phone"
say "At every launch the app writes an empty marker file into its App Group container and marks it" \
    "excluded from backup, sets notificationEnabled = true in the group's shared defaults, and sends" \
    "its device token to the server (the last word below)."
run launch old-phone --app "$APP"
OLD_TOKEN=${OUT##* }
OLD_STATUS=$(quietly status old-phone --json)
check "the marker is there, excluded from backup" \
    is "$(field 'd["apps"][0]["markerPresent"], d["apps"][0]["markerExcluded"]' <<<"$OLD_STATUS")" "(True, True)"
check "the flag notificationEnabled is true" is "$(field 'd["apps"][0]["flag"]' <<<"$OLD_STATUS")" True

# MARK: - The backup
step 3 2026-12-01T23:00:00Z "That night the old phone is backed up"
say "First, what the backup will leave out, and why:"
run backup old-phone --dry-run
say "The marker stays behind (apple-exclude-xattr: the app excluded it). App bundles are reinstalled from" \
    "the App Store, caches and tmp are never backed up, and DeviceLocal (the phone's identity, its" \
    "notifications and event log) belongs to the phone itself. Everything else is kept: the App Group's" \
    "shared defaults, with notificationEnabled = true, are in the backup."
check "the marker is left out of the backup because it is excluded" \
    grep -q "$MARKER  (apple-exclude-xattr)" <<<"$OUT"
run backup old-phone -o old-phone.tar.zst --no-progress
run verify old-phone.tar.zst
check "the backup is written and every file matches its SHA-256" is "$STATUS" 0

# MARK: - The new phone
step 4 2026-12-02T08:00:00Z "A new iPhone: the user restores the backup onto it"
run init new-phone
run restore old-phone.tar.zst new-phone --no-progress
check "the restore succeeds" is "$STATUS" 0
say "The new phone keeps its own identity. The flag came back with the backup, the marker did not:"
run status new-phone
NEW_STATUS=$(quietly status new-phone --json)
check "the new phone has its own identity" \
    test "$(field 'd["udid"]' <<<"$NEW_STATUS")" != "$(field 'd["udid"]' <<<"$OLD_STATUS")"
check "the widget is back on the home screen, the app installed again but not launched" \
    is "$(field 'd["apps"][0]["widgetPlaced"], d["apps"][0]["lastDeviceToken"]' <<<"$NEW_STATUS")" "(True, None)"
check "marker absent, flag true: this phone was restored and News has not run here" \
    is "$(field 'd["apps"][0]["markerPresent"], d["apps"][0]["flag"]' <<<"$NEW_STATUS")" "(False, True)"

run widget list new-phone
check "the SpringBoard layout came back with the backup: the same widget, same id" \
    is "$(quietly widget list new-phone --json)" "$(quietly widget list old-phone --json)"

# MARK: - The widget
step 5 2026-12-02T09:00:00Z "The widget refreshes on the new phone; the user has not opened News"
say "iOS refreshes widgets on its own, even for an app that has never been launched on this phone."
run widget-refresh new-phone
say "Decision 'scheduled', reason 'restored': marker missing and flag true. The widget schedules one" \
    "local notification for 24 hours later and clears the flag."
ID=$(grep -o 'notification [^ ]*' <<<"$OUT" | head -1 | cut -d' ' -f2)
check "one nudge is scheduled, firing at Thu 3 Dec 09:00 (24 h later)" \
    grep -q "scheduled (restored): notification $ID fires 2026-12-03T09:00:00Z" <<<"$OUT"

step 6 2026-12-02T09:30:00Z "Half an hour later the widget refreshes again"
run widget-refresh new-phone
say "Reason 'not-armed': the flag is false now, so there is no second notification."
check "the second refresh decides nothing" grep -q "none (not-armed)" <<<"$OUT"
check "exactly one notification exists" \
    is "$(quietly notifications new-phone --json | field 'len(d["notifications"])')" 1

# MARK: - 24 hours later
step 7 2026-12-03T08:59:59Z "One second before the 24 hours are up"
run notifications new-phone
check "the nudge is still pending" \
    is "$(quietly notifications new-phone --json | field '[n["state"] for n in d["notifications"]]')" "['pending']"

step 8 2026-12-03T09:00:00Z "24 hours after the refresh, News still not opened: the notification appears"
run notifications new-phone
check "the nudge is delivered, exactly 24 h after it was scheduled" \
    is "$(quietly notifications new-phone --json | field '[n["state"] for n in d["notifications"]]')" "['delivered']"

step 9 2026-12-03T09:05:00Z "The user taps the notification"
say "News launches (marker and flag written again) and sends this phone's device token to the server."
run tap new-phone --notification "$ID"
NEW_TOKEN=${OUT##* }
say "old phone's token: $OLD_TOKEN" "new phone's token: $NEW_TOKEN"
check "the server gets a new device token, so push reaches the new phone" \
    test "$STATUS" -eq 0 -a ${#NEW_TOKEN} -eq 64 -a "$NEW_TOKEN" != "$OLD_TOKEN"

# MARK: - What the effect measurement would count
step 10 2026-12-03T09:05:00Z "The new phone's event log (what an effect measurement would count)"
run events new-phone
EVENTS=$(quietly events new-phone --json | field '[e["type"] for e in d["events"]
    if e["type"].startswith("notification-") or e["type"] == "launch"]')
check "one nudge scheduled, delivered and tapped; one launch, from the notification" is "$EVENTS" \
    "['notification-scheduled', 'notification-delivered', 'notification-tapped', 'launch']"

# MARK: - The same move through a Finder backup
step 11 2026-12-03T10:00:00Z "The same move through a Finder backup (MobileSync), onto a third phone"
say "Finder, iTunes and idevicebackup2 write a directory: Manifest.db (SQLite) indexes every file by domain," \
    "content files are named by SHA-1. devicectl writes and restores that format too; the same exclusions apply" \
    "(the computer engine: the marker is still left out)."
run backup old-phone --format mobilesync -o old-phone.backup --no-progress
run verify old-phone.backup
check "the MobileSync backup is complete and checks out" is "$STATUS" 0
run restore old-phone.backup third-phone --no-progress
check "the restore from the MobileSync backup succeeds" is "$STATUS" 0
THIRD_STATUS=$(quietly status third-phone --json)
check "marker absent, flag true, widget placed: restored, and News not opened here" \
    is "$(field 'd["apps"][0]["markerPresent"], d["apps"][0]["flag"], d["apps"][0]["widgetPlaced"]' <<<"$THIRD_STATUS")" \
    "(False, True, True)"
run widget-refresh third-phone
check "the widget schedules its one nudge there too" grep -q "scheduled (restored)" <<<"$OUT"

echo
if [ "$failures" -eq 0 ]; then
    printf '%sVerdict: the story held: %s%s\n' "$green$bold" \
        "the restored phone nudged once, 24 h later; the tap sent the new device token; a Finder-style backup restores the same way." "$off"
else
    printf '%sVerdict: the story did not hold: %d check(s) failed (see ✘ above).%s\n' "$red$bold" "$failures" "$off"
    exit 1
fi
