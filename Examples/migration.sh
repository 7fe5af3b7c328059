#!/usr/bin/env bash
# The seed's story as a plain script: an old phone, a backup, a restore onto a new phone,
# the widget's nudge, the tap, and the new device token. Copy and adapt.
set -euo pipefail
DEVICECTL=${DEVICECTL:-devicectl}
echo "devicectl migration demo: not yet complete (see issue on the migration suite)."
"$DEVICECTL" --version
