#!/bin/sh
# held-out corpus payload: a harmless marker outside the workspace
mkdir -p /tmp/tg-heldout && touch /tmp/tg-heldout/evil-sh
