#!/usr/bin/env bash
# Restore a phone's Finder, iTunes or idevicebackup2 backup onto a simulated device and ask the widget the real
# question: is the marker gone, is the flag still true, would the widget nudge? A plain script to copy and adapt.
#
# Usage: finder-backup-nudge.sh BACKUP [APP]
#   BACKUP  the backup directory (.../MobileSync/Backup/<UDID>, or what `idevicebackup2 backup DIR` made), or the
#           MobileSync/Backup folder when it holds exactly one backup
#   APP     the bundle id whose widget to ask (default: every app whose nudge widget is on the home screen)
# An encrypted backup needs its password: DEVICECTL_BACKUP_PASSWORD, or devicectl asks on a terminal.
# Nothing in BACKUP is changed. The simulated phone lives in a scratch directory removed at the end (KEEP=1
# keeps it and says where). Exit status: 0 when the widget would nudge, 1 when it would not, 2 on an error.
#
# Uses `devicectl` from PATH, or the binary in $DEVICECTL. Needs bash, grep and sed.
set -euo pipefail

DEVICECTL=${DEVICECTL:-devicectl}
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 BACKUP [APP]" >&2
    exit 2
fi
BACKUP=$1
APP=${2:-}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/devicectl-finder-backup.XXXXXX")
PHONE=$WORK/phone
if [ "${KEEP:-0}" = 1 ]; then
    trap 'echo "the restored phone is kept at $PHONE"' EXIT
else
    trap 'rm -rf "$WORK"' EXIT
fi
trap 'echo "Verdict: could not ask the widget (a command failed at line $LINENO)"; exit 2' ERR

echo "== The backup"
"$DEVICECTL" list "$BACKUP" --summary
"$DEVICECTL" verify "$BACKUP"

echo "== Restored onto a new simulated phone (its own identity; containers under new UUIDs)"
"$DEVICECTL" restore "$BACKUP" "$PHONE" --no-progress
"$DEVICECTL" status "$PHONE"

echo "== The widget refreshes before anyone opens the app on this phone"
# The restored phone's clock starts at the restore (DEVICECTL_NOW, or now); the refresh happens an hour later.
RESTORED_AT=$(date -u -d "${DEVICECTL_NOW:-now}" +%s)
export DEVICECTL_NOW
DEVICECTL_NOW=$(date -u -d "@$((RESTORED_AT + 3600))" '+%Y-%m-%dT%H:%M:%SZ')
REFRESH=$("$DEVICECTL" widget-refresh "$PHONE" --json)
# One widget a line: "APP DECISION REASON".
DECISIONS=$(sed 's/},{/}\n{/g' <<<"$REFRESH" |
    sed -n 's/.*"app":"\([^"]*\)".*"decision":"\([^"]*\)".*"reason":"\([^"]*\)".*/\1 \2 \3/p')
if [ -n "$APP" ]; then
    DECISIONS=$(grep "^$APP " <<<"$DECISIONS" || true)
    [ -n "$DECISIONS" ] || { echo "Verdict: no nudge: $APP has no nudge widget on the restored home screen"; exit 1; }
fi
[ -n "$DECISIONS" ] || { echo "Verdict: no nudge: no app in this backup has the nudge widget on its home screen"; exit 1; }
echo "$DECISIONS" | while read -r app decision reason; do echo "$app: $decision ($reason)"; done

if grep -q ' scheduled ' <<<"$DECISIONS"; then
    echo "Verdict: the widget would nudge: $(grep ' scheduled ' <<<"$DECISIONS" | cut -d' ' -f1 | paste -sd, -)" \
        "(restored device, app not launched here); one notification, 24 hours after the refresh."
    exit 0
fi
echo "Verdict: no nudge: $(cut -d' ' -f1,3 <<<"$DECISIONS" | sed 's/ / (/; s/$/)/' | paste -sd, -)"
exit 1
