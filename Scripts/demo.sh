#!/usr/bin/env bash
# The migration demo (`make demo`): the seed article's story on temporary device roots, narrated step by
# step with the devicectl commands it runs. Ends with a one-line verdict; exit 0 only if the story held.
set -uo pipefail

DEVICECTL=${DEVICECTL:-devicectl}
APP=com.example.news
GROUP=group.com.example.news
WORK=$(mktemp -d "${TMPDIR:-/tmp}/devicectl-demo.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
OLD="$WORK/old-phone" NEW="$WORK/new-phone" ARCHIVE="$WORK/old-phone.tar.zst"
failures=0

if [ -t 1 ]; then bold=$'\e[1m' dim=$'\e[2m' green=$'\e[32m' red=$'\e[31m' off=$'\e[0m'; else bold= dim= green= red= off=; fi

say() { printf '\n%s%s%s\n' "$bold" "$*" "$off"; }
# run CMD...: shows the command as a user would type it, then its output, indented.
run() {
    printf '%s$ devicectl %s%s\n' "$dim" "$*" "$off"
    local out status
    out=$("$DEVICECTL" "$@" 2>&1); status=$?
    [ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/    /'
    return $status
}
# capture CMD...: runs devicectl quietly and prints its stdout (for values the story needs).
capture() { "$DEVICECTL" "$@" 2>/dev/null; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {'d': d}))" "$1"; }
check() { # check DESCRIPTION CONDITION-EXIT-STATUS
    if [ "$2" -eq 0 ]; then printf '    %s✔ %s%s\n' "$green" "$1" "$off"; else printf '    %s✘ %s%s\n' "$red" "$1" "$off"; failures=$((failures + 1)); fi
}

say "1. The old phone: a news app with its home-screen widget."
run init "$OLD"
run install "$OLD" --app "$APP" --group "$GROUP"
run widget add "$OLD" --app "$APP"

say "2. The user opens the app on the old phone (2026-12-01 08:00)."
echo "   At launch the app writes an empty marker file, excluded from backup, into its App Group,"
echo "   sets notificationEnabled = true in the group's shared defaults, and sends its device token."
run launch "$OLD" --app "$APP" --now 2026-12-01T08:00:00Z
OLD_TOKEN=$(capture launch "$OLD" --app "$APP" --now 2026-12-01T08:00:01Z --json | json 'd["deviceToken"]')
run defaults read "$OLD" "$GROUP" notificationEnabled

say "3. That night the phone is backed up. What is skipped, and why:"
run backup "$OLD" --dry-run
run backup "$OLD" -o "$ARCHIVE" --no-progress
run verify "$ARCHIVE"
check "the backup verifies" $?

say "4. The user moves to a new phone and restores the backup onto it."
run init "$NEW"
run restore "$ARCHIVE" "$NEW" --no-progress
check "the restore succeeds" $?
echo "   After the restore: the flag came back (it is in the backup), the marker did not (it was excluded)."
run status "$NEW"
STATUS=$(capture status "$NEW" --json)
[ "$(echo "$STATUS" | json 'd["apps"][0]["markerPresent"]')" = "False" ]; check "the marker is absent on the new phone" $?

say "5. The widget refreshes on the new phone before the app is ever opened (09:00)."
run widget-refresh "$NEW" --now 2026-12-01T09:00:00Z
REFRESH=$(capture widget-refresh "$NEW" --now 2026-12-01T09:05:00Z --json)
echo "   A second refresh five minutes later decides nothing new:"
printf '    %s\n' "$REFRESH"
COUNT=$(capture notifications "$NEW" --now 2026-12-01T09:10:00Z --json | json 'len(d["notifications"])')
[ "$COUNT" = "1" ]; check "exactly one nudge is scheduled" $?

say "6. 24 hours pass without the app being opened. The notification is delivered."
run notifications "$NEW" --now 2026-12-02T09:00:00Z
ID=$(capture notifications "$NEW" --now 2026-12-02T09:00:00Z --json | json 'd["notifications"][0]["id"]')
STATE=$(capture notifications "$NEW" --now 2026-12-02T09:00:00Z --json | json 'd["notifications"][0]["state"]')
[ "$STATE" = "delivered" ]; check "the nudge is delivered 24 h after the refresh" $?

say "7. The user taps it: the app launches and sends its new device token to the server."
run tap "$NEW" --notification "$ID" --now 2026-12-02T09:01:00Z
NEW_TOKEN=$(capture events "$NEW" --json | json '[e for e in d["events"] if e["type"]=="device-token-sent"][-1]["details"]["token"]')
echo "   old phone's token: $OLD_TOKEN"
echo "   new phone's token: $NEW_TOKEN"
[ -n "$NEW_TOKEN" ] && [ "$NEW_TOKEN" != "$OLD_TOKEN" ]; check "the server now has the new phone's token" $?

say "The new phone's event log:"
run events "$NEW"

echo
if [ "$failures" -eq 0 ]; then
    printf '%sVerdict: the restored phone nudged once, the user came back, and push reaches the new device.%s\n' "$green$bold" "$off"
else
    printf '%sVerdict: %d check(s) failed: the migration story did not hold.%s\n' "$red$bold" "$failures" "$off"
    exit 1
fi
