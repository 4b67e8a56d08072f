#!/usr/bin/env python3
"""lowest_card: an example durak-sim engine (docs/engine-protocol.md, protocol 1).

It plays from the readable part of each ``decide`` message alone: among the legal actions
that lay a card (attack, defend, transfer) it plays the lowest card, non-trumps before
trumps (rank, then suit S C D H); when no card can be laid it swaps the trump six, ends a
lead, stops, takes or keeps, the first of these that is legal. It needs nothing but Python:
run it as a program, ``durak-sim match engine:durak_sim/engines/lowest_card.py easy``.

>>> choose({"trump_suit": "D"}, ["attack 7D", "attack 9S", "attack KC"])
'attack 9S'
>>> choose({"trump_suit": "D"}, ["defend 8H 7H", "defend 6D 7H", "take"])
'defend 8H 7H'
>>> choose({"trump_suit": "D"}, ["take", "stop"])
'stop'
"""
import json
import sys

RANKS = "6789TJQKA"
SUITS = "SCDH"
CARD_ACTS = ("attack", "defend", "transfer")
#: what to say when no card is laid, first legal one wins
WORDS = ("swap", "done", "stop", "take", "keep")


def choose(view: dict, actions: list) -> str:
    """The action to play, one of ``actions`` (record notation)."""
    trump = view["trump_suit"]

    def key(i):
        card = actions[i].split()[1]
        return card[1] == trump, RANKS.index(card[0]), SUITS.index(card[1]), i

    laying = [i for i, a in enumerate(actions) if a.split()[0] in CARD_ACTS]
    if laying:
        return actions[min(laying, key=key)]
    for word in WORDS:
        if word in actions:
            return word
    return actions[0]


def main() -> int:
    out = sys.stdout
    while True:
        line = sys.stdin.readline()
        if not line:           # durak-sim went away: so do we
            return 0
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            out.write(json.dumps({"type": "ready", "name": "lowest_card", "version": 1,
                                  "protocol": 1}) + "\n")
        elif kind == "decide":
            out.write(json.dumps({"action": choose(msg["view"], msg["actions"])}) + "\n")
        elif kind == "quit":
            return 0
        # "game": nothing to reset
        out.flush()


if __name__ == "__main__":
    sys.exit(main())
