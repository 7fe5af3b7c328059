#!/usr/bin/env bash
# Two nudge widgets on one home screen: News and Mail, each with its own App Group, marker and flag. Only News
# is opened on the old phone before the backup, so after the restore only its widget nudges; Mail's flag was
# never set. Each widget is found by its app in the refresh's result, never by its place on the screen. The last
# line is the verdict (exit 0 when the story held).
#
# Every check reads devicectl's --json output. Uses `devicectl` from PATH, or $DEVICECTL; needs bash and python3.
set -euo pipefail

DEVICECTL=${DEVICECTL:-devicectl}
NEWS=com.example.news
MAIL=com.example.mail

WORK=$(mktemp -d "${TMPDIR:-/tmp}/devicectl-two-widgets.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
OLD=$WORK/old-phone
NEW=$WORK/new-phone
ARCHIVE=$WORK/old-phone.tar.zst

fail() {
    echo "Verdict: the story did not hold: $*"
    exit 1
}
trap 'fail "a command failed at line $LINENO"' ERR

at() { export DEVICECTL_NOW=$1; }
# json EXPR APP: the Python expression EXPR of the JSON object on stdin (`d` the object, `app` the bundle id).
json() { python3 -c 'import json, sys; d = json.load(sys.stdin); app = sys.argv[2]; print(eval(sys.argv[1]))' "$1" "${2:-}"; }
WIDGET='next((w for w in d["widgets"] if w["app"] == app), None)'

echo "== Old phone: News and Mail, both widgets on the home screen; only News is opened"
at 2026-12-01T08:00:00Z
"$DEVICECTL" init "$OLD" >/dev/null
for app in "$NEWS" "$MAIL"; do
    "$DEVICECTL" install "$OLD" --app "$app" >/dev/null
    "$DEVICECTL" widget add "$OLD" --app "$app" >/dev/null
done
"$DEVICECTL" widget list "$OLD"
"$DEVICECTL" launch "$OLD" --app "$NEWS" >/dev/null

echo "== Backup, and restore onto a new phone"
at 2026-12-01T23:00:00Z
"$DEVICECTL" backup "$OLD" -o "$ARCHIVE" --no-progress -q
at 2026-12-02T08:00:00Z
"$DEVICECTL" restore "$ARCHIVE" "$NEW" --no-progress -q
[ "$("$DEVICECTL" widget list "$NEW" --json | json 'len(d["widgets"])')" = 2 ] || fail "the two widgets did not come back"

echo "== Both widgets refresh before either app is opened"
at 2026-12-02T09:00:00Z
REFRESH=$("$DEVICECTL" widget-refresh "$NEW" --json)
for app in "$NEWS" "$MAIL"; do
    echo "$app: $(json "($WIDGET)[\"decision\"], ($WIDGET)[\"reason\"]" "$app" <<<"$REFRESH")"
done
[ "$(json "($WIDGET)[\"reason\"]" "$NEWS" <<<"$REFRESH")" = restored ] || fail "$NEWS's widget did not nudge"
[ "$(json "($WIDGET)[\"reason\"]" "$MAIL" <<<"$REFRESH")" = not-armed ] ||
    fail "$MAIL's widget should not nudge: Mail was never opened, its flag never set"

echo "== 24 hours later: exactly one notification, News's"
at 2026-12-03T09:00:00Z
NOTES=$("$DEVICECTL" notifications "$NEW" --json | json '[(n["app"], n["state"]) for n in d["notifications"]]')
echo "$NOTES"
[ "$NOTES" = "[('$NEWS', 'delivered')]" ] || fail "expected one delivered notification, from $NEWS"

echo "Verdict: the story held: of two widgets, only the one whose app had been opened before the backup nudged."
