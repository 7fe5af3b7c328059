#!/usr/bin/env bash
# A phone-to-phone migration with devicectl, as a plain script to copy and adapt: an old phone with the News
# app launched and its widget placed, a backup, a restore onto a new phone, the widget's refresh, the nudge
# delivered 24 hours later, the tap, and the new device token. Prints what happens; the last line is the
# verdict, and the exit status is 0 only if every expectation held.
#
# Uses `devicectl` from PATH, or the binary in $DEVICECTL. Needs only bash, grep and sed.
set -euo pipefail

DEVICECTL=${DEVICECTL:-devicectl}
APP=com.example.news
GROUP=group.com.example.news

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
# The value of "KEY":"VALUE" in one line of --json output (the first match).
json_value() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" | head -n 1; }

echo "== Old phone: install News, place its widget, open the app"
at 2026-12-01T08:00:00Z
"$DEVICECTL" init "$OLD" >/dev/null
"$DEVICECTL" install "$OLD" --app "$APP" --group "$GROUP" >/dev/null
"$DEVICECTL" widget add "$OLD" --app "$APP" --size medium
"$DEVICECTL" widget list "$OLD"
OLD_TOKEN=$("$DEVICECTL" launch "$OLD" --app "$APP" | sed -n 's/^device token sent: //p')
echo "device token on the old phone: $OLD_TOKEN"
[ "$("$DEVICECTL" defaults read "$OLD" "$GROUP" notificationEnabled)" = 1 ] || fail "the launch did not set the flag"

echo "== Back up the old phone (the marker is excluded from backup, the flag is not)"
at 2026-12-01T23:00:00Z
"$DEVICECTL" backup "$OLD" --dry-run 2>&1 | grep 'device-restoration-marker.txt' ||
    fail "the backup would keep the marker"
"$DEVICECTL" backup "$OLD" -o "$ARCHIVE" --no-progress
"$DEVICECTL" verify "$ARCHIVE"

echo "== Restore onto a new phone"
at 2026-12-02T08:00:00Z
"$DEVICECTL" init "$NEW" >/dev/null
"$DEVICECTL" restore "$ARCHIVE" "$NEW" --no-progress
[ "$("$DEVICECTL" defaults read "$NEW" "$GROUP" notificationEnabled)" = 1 ] || fail "the flag was not restored"
[ "$("$DEVICECTL" widget list "$NEW" --json)" = "$("$DEVICECTL" widget list "$OLD" --json)" ] ||
    fail "the SpringBoard home screen did not come back"

echo "== The widget refreshes before anyone opens News on the new phone"
at 2026-12-02T09:00:00Z
REFRESH=$("$DEVICECTL" widget-refresh "$NEW" --json)
echo "$REFRESH"
ID=$(json_value notification <<<"$REFRESH")
[ -n "$ID" ] || fail "the widget scheduled no notification"
grep -q '"reason":"restored"' <<<"$REFRESH" || fail "the decision's reason is not 'restored'"
grep -q '"fireDate":"2026-12-03T09:00:00Z"' <<<"$REFRESH" || fail "the nudge does not fire 24 hours later"

echo "== Refreshes later that day schedule nothing more"
at 2026-12-02T15:00:00Z
LATER=$("$DEVICECTL" widget-refresh "$NEW")
echo "$LATER"
grep -q 'none (not-armed)' <<<"$LATER" || fail "a second refresh nudged again"

echo "== 24 hours after the first refresh"
at 2026-12-03T08:59:59Z
"$DEVICECTL" notifications "$NEW" --json | grep -q '"state":"pending"' ||
    fail "the nudge is not pending before 24 hours"
at 2026-12-03T09:00:00Z
NOTIFICATIONS=$("$DEVICECTL" notifications "$NEW")
echo "$NOTIFICATIONS"
[ "$(grep -c . <<<"$NOTIFICATIONS")" = 1 ] || fail "expected exactly one notification"
grep -q "^$ID .* delivered " <<<"$NOTIFICATIONS" || fail "the nudge was not delivered at 24 hours"

echo "== The user taps the notification: News launches and sends the new phone's token"
at 2026-12-03T09:05:00Z
NEW_TOKEN=$("$DEVICECTL" tap "$NEW" --notification "$ID" | sed -n 's/.*device token sent: //p')
echo "device token on the new phone: $NEW_TOKEN"
[ -n "$NEW_TOKEN" ] && [ "$NEW_TOKEN" != "$OLD_TOKEN" ] || fail "the new phone did not send a new device token"

echo "Verdict: the story held: one nudge, delivered 24 hours after the refresh; the tap sent a new device token."
