#!/usr/bin/env bash
# The two flag policies side by side: News clears its flag only when it schedules the nudge (`--nudge-policy once`,
# the article's prose), Sports on every refresh (`as-published`, the article's code). Both apps are opened on the
# old phone; their widgets refresh once more before the nightly backup; the backup is restored onto a new phone.
# Under `once` the flag is still true in the backup and the new phone nudges; under `as-published` that refresh
# set it to false, so the new phone never nudges. The last line is the verdict (exit 0 when both came out so).
#
# Every check reads devicectl's --json output. Uses `devicectl` from PATH, or $DEVICECTL; needs bash and python3.
set -euo pipefail

DEVICECTL=${DEVICECTL:-devicectl}
ONCE=com.example.news
PUBLISHED=com.example.sports

WORK=$(mktemp -d "${TMPDIR:-/tmp}/devicectl-policies.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
OLD=$WORK/old-phone
NEW=$WORK/new-phone
ARCHIVE=$WORK/old-phone.tar

fail() {
    echo "Verdict: the story did not hold: $*"
    exit 1
}
trap 'fail "a command failed at line $LINENO"' ERR

at() { export DEVICECTL_NOW=$1; }
# json EXPR APP: the Python expression EXPR of the JSON object on stdin (`d` the object, `app` the bundle id).
json() { python3 -c 'import json, sys; d = json.load(sys.stdin); app = sys.argv[2]; print(eval(sys.argv[1]))' "$1" "${2:-}"; }
FLAG='next(a for a in d["apps"] if a["bundleId"] == app)["flag"]'
DECISION='next(((w["decision"], w["reason"]) for w in d["widgets"] if w["app"] == app), None)'

echo "== Old phone: News (policy once) and Sports (policy as-published), both opened"
at 2026-12-01T08:00:00Z
"$DEVICECTL" init "$OLD" >/dev/null
"$DEVICECTL" install "$OLD" --app "$ONCE" --nudge-policy once >/dev/null
"$DEVICECTL" install "$OLD" --app "$PUBLISHED" --nudge-policy as-published >/dev/null
for app in "$ONCE" "$PUBLISHED"; do
    "$DEVICECTL" widget add "$OLD" --app "$app" >/dev/null
    "$DEVICECTL" launch "$OLD" --app "$app" >/dev/null
done

echo "== The widgets refresh on the old phone (the marker is there: no nudge; as-published clears its flag anyway)"
at 2026-12-01T20:00:00Z
REFRESH=$("$DEVICECTL" widget-refresh "$OLD" --json)
for app in "$ONCE" "$PUBLISHED"; do
    [ "$(json "$DECISION" "$app" <<<"$REFRESH")" = "('none', 'marker-present')" ] ||
        fail "$app: a refresh with the marker present decided otherwise"
done
STATUS=$("$DEVICECTL" status "$OLD" --json)
echo "flag before the backup: $ONCE $(json "$FLAG" "$ONCE" <<<"$STATUS"), $PUBLISHED $(json "$FLAG" "$PUBLISHED" <<<"$STATUS")"
[ "$(json "$FLAG" "$ONCE" <<<"$STATUS")" = True ] || fail "$ONCE (once) lost its flag before the backup"
[ "$(json "$FLAG" "$PUBLISHED" <<<"$STATUS")" = False ] || fail "$PUBLISHED (as-published) kept its flag"

echo "== The nightly backup, restored onto a new phone"
at 2026-12-01T23:00:00Z
"$DEVICECTL" backup "$OLD" -o "$ARCHIVE" --no-progress -q
at 2026-12-02T08:00:00Z
"$DEVICECTL" restore "$ARCHIVE" "$NEW" --no-progress -q

echo "== The widgets refresh on the new phone before either app is opened"
at 2026-12-02T09:00:00Z
REFRESH=$("$DEVICECTL" widget-refresh "$NEW" --json)
echo "$ONCE: $(json "$DECISION" "$ONCE" <<<"$REFRESH")"
echo "$PUBLISHED: $(json "$DECISION" "$PUBLISHED" <<<"$REFRESH")"
[ "$(json "$DECISION" "$ONCE" <<<"$REFRESH")" = "('scheduled', 'restored')" ] || fail "$ONCE (once) did not nudge"
[ "$(json "$DECISION" "$PUBLISHED" <<<"$REFRESH")" = "('none', 'not-armed')" ] ||
    fail "$PUBLISHED (as-published) should not nudge: its flag was false in the backup"

echo "Verdict: the story held: under once the restored phone nudges; under as-published a refresh before the backup had cleared the flag, so it does not."
