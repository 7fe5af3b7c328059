#!/usr/bin/env bash
# A phone-to-phone migration with devicectl, as a plain script to copy and adapt: an old phone with the app
# launched and its widget placed, a backup, a restore onto a new phone, the widget's refresh, the nudge delivered
# 24 hours later, the tap, and the new device token. Prints what happens; the last line is the verdict, and the
# exit status is 0 only if every expectation held.
#
# Every check reads devicectl's --json output (docs/JSON.md), never its text. The app, its App Group, the marker's
# file name and the flag's key are the variables below: change them to try your own app's settings.
#
# Uses `devicectl` from PATH, or the binary in $DEVICECTL. Needs bash and python3 (to read the JSON).
set -euo pipefail

DEVICECTL=${DEVICECTL:-devicectl}
APP=com.example.news
GROUP=group.com.example.news
MARKER=device-restoration-marker.txt
FLAG=notificationEnabled

# Scratch directory for the two phones and the archive (removed at the end).
WORK=$(mktemp -d "${TMPDIR:-/tmp}/devicectl-migration.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
OLD=$WORK/old-phone
NEW=$WORK/new-phone
ARCHIVE=$WORK/old-phone.tar.gz

fail() {
    echo "Verdict: the story did not hold: $*"
    exit 1
}
trap 'fail "a command failed at line $LINENO"' ERR

# devicectl reads the simulated time from DEVICECTL_NOW, so "24 hours later" needs no waiting.
at() { export DEVICECTL_NOW=$1; }
# json EXPR: the Python expression EXPR of the JSON object on stdin (`d` is the object, `app` is $APP).
json() { python3 -c 'import json, sys; d = json.load(sys.stdin); app = sys.argv[2]; print(eval(sys.argv[1]))' "$1" "$APP"; }
# The app's entry in a status or widget-refresh result (its widget, not the first one on the home screen).
APP_STATUS='next(a for a in d["apps"] if a["bundleId"] == app)'
APP_WIDGET='next((w for w in d["widgets"] if w["app"] == app), None)'

echo "== Old phone: install the app, place its widget, open the app"
at 2026-12-01T08:00:00Z
"$DEVICECTL" init "$OLD" >/dev/null
"$DEVICECTL" install "$OLD" --app "$APP" --group "$GROUP" --marker-name "$MARKER" --flag-key "$FLAG" >/dev/null
"$DEVICECTL" widget add "$OLD" --app "$APP" --size medium
"$DEVICECTL" widget list "$OLD"
OLD_TOKEN=$("$DEVICECTL" launch "$OLD" --app "$APP" --json | json 'd["deviceToken"]')
echo "device token on the old phone: $OLD_TOKEN"
OLD_STATUS=$("$DEVICECTL" status "$OLD" --json)
[ "$(json "$APP_STATUS[\"flag\"]" <<<"$OLD_STATUS")" = True ] || fail "the launch did not set $FLAG"
[ "$(json "$APP_STATUS[\"markerExcluded\"]" <<<"$OLD_STATUS")" = True ] || fail "the marker is not excluded from backup"

echo "== Back up the old phone (the marker is excluded from backup, the flag is not)"
at 2026-12-01T23:00:00Z
SKIPPED=$("$DEVICECTL" backup "$OLD" --dry-run --json | json '[e["path"] for e in d["excludedPaths"]]')
grep -q "$MARKER" <<<"$SKIPPED" || fail "the backup would keep the marker"
"$DEVICECTL" backup "$OLD" -o "$ARCHIVE" --no-progress
[ "$("$DEVICECTL" verify "$ARCHIVE" --json | json 'd["ok"]')" = True ] || fail "the archive does not verify"

echo "== Restore onto a new phone"
at 2026-12-02T08:00:00Z
"$DEVICECTL" init "$NEW" >/dev/null
"$DEVICECTL" restore "$ARCHIVE" "$NEW" --no-progress
NEW_STATUS=$("$DEVICECTL" status "$NEW" --json)
[ "$(json "$APP_STATUS[\"flag\"]" <<<"$NEW_STATUS")" = True ] || fail "the flag was not restored"
[ "$(json "$APP_STATUS[\"markerPresent\"]" <<<"$NEW_STATUS")" = False ] || fail "the marker came back"
[ "$(json "$APP_STATUS[\"widgetPlaced\"]" <<<"$NEW_STATUS")" = True ] || fail "the widget is not on the home screen"
[ "$("$DEVICECTL" widget list "$NEW" --json)" = "$("$DEVICECTL" widget list "$OLD" --json)" ] ||
    fail "the SpringBoard home screen did not come back"

echo "== The widget refreshes before anyone opens the app on the new phone"
at 2026-12-02T09:00:00Z
REFRESH=$("$DEVICECTL" widget-refresh "$NEW" --json)
echo "$REFRESH"
[ "$(json "$APP_WIDGET is not None" <<<"$REFRESH")" = True ] || fail "the app's widget did not refresh"
ID=$(json "$APP_WIDGET[\"notification\"]" <<<"$REFRESH")
[ "$(json "$APP_WIDGET[\"decision\"], $APP_WIDGET[\"reason\"]" <<<"$REFRESH")" = "('scheduled', 'restored')" ] ||
    fail "the widget did not schedule the nudge for a restored device"
[ "$(json "$APP_WIDGET[\"fireDate\"]" <<<"$REFRESH")" = 2026-12-03T09:00:00Z ] ||
    fail "the nudge does not fire 24 hours later"

echo "== Refreshes later that day schedule nothing more"
at 2026-12-02T15:00:00Z
LATER=$("$DEVICECTL" widget-refresh "$NEW" --json)
[ "$(json "$APP_WIDGET[\"reason\"]" <<<"$LATER")" = not-armed ] || fail "a second refresh nudged again"
echo "second refresh: none (not-armed)"

echo "== 24 hours after the first refresh"
STATES='[(n["id"], n["state"]) for n in d["notifications"] if n["app"] == app]'
at 2026-12-03T08:59:59Z
[ "$("$DEVICECTL" notifications "$NEW" --json | json "$STATES")" = "[('$ID', 'pending')]" ] ||
    fail "the nudge is not pending before 24 hours"
at 2026-12-03T09:00:00Z
"$DEVICECTL" notifications "$NEW"
[ "$("$DEVICECTL" notifications "$NEW" --json | json "$STATES")" = "[('$ID', 'delivered')]" ] ||
    fail "exactly one nudge, delivered at 24 hours, was expected"

echo "== The user taps the notification: the app launches and sends the new phone's token"
at 2026-12-03T09:05:00Z
NEW_TOKEN=$("$DEVICECTL" tap "$NEW" --notification "$ID" --json | json 'd["deviceToken"]')
echo "device token on the new phone: $NEW_TOKEN"
[ -n "$NEW_TOKEN" ] && [ "$NEW_TOKEN" != "$OLD_TOKEN" ] || fail "the new phone did not send a new device token"

echo "Verdict: the story held: one nudge, delivered 24 hours after the refresh; the tap sent a new device token."
