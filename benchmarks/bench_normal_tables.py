"""normal against easy at every table: one JSON line per (ruleset, players).

    python benchmarks/bench_normal_tables.py [--deals 5000] [--seed 11] [--only perevodnoy-4,teams]
                                             [--against easy]

One ``normal`` and ``players - 1`` copies of the opponent (with teams: normal in seats 0, 2, 4,
the opponent in 1, 3, 5), every deal once per seat rotation. Per table: each side's mean
place, Durak rate (with teams: its team lost) and first-out rate, the first two with a 95%
interval over deals (a deal's rotations are averaged first: they share the cards).

A game that the cap on play ends (rules E12: a cycle of takes among deterministic players;
easy alone does it in a few deals in 10,000 at three to six players) is a draw among the
seats still holding cards, counted like any other result; ``capped`` counts the deals with
such a game in some rotation and ``capped_normal_playing`` those games in which normal still
held cards at the cap. ``seconds`` is the play's kernel time; ``compile_s`` the compile (or
cache load) of the kernel and strategies before it, apart (0 once they are loaded).
"""
import argparse

import numpy as np

from durak_sim.bench import first_paragraph, json_line, run_script

TABLES = [(v, p) for v in ("podkidnoy", "perevodnoy", "prostoy", "podkidnoy-full")
          for p in range(2, 7)] + [("teams", 4), ("teams", 6), ("teams+transfer", 4),
                                   ("teams+transfer", 6)]


def table_line(variant: str, players: int, deals: int, seed: int, other: str) -> dict:
    from durak_sim.kernel import layout as L
    from durak_sim.play import game_schedule, play_schedule
    from durak_sim.rules import Rules

    rules = Rules(variant="teams", players=players, transfer=True) \
        if variant == "teams+transfer" else Rules(variant=variant, players=players)
    lineup = [("normal" if s % 2 == 0 else other) for s in range(players)] if rules.teams \
        else ["normal"] + [other] * (players - 1)
    d, r = game_schedule(range(deals), players, True)
    batch = play_schedule(lineup, seed, d, r, rules=rules, threads=1)
    res = batch.results
    capped = res[:, L.R_CAPPED] != 0
    names = np.array([[batch.seat_names(g)[s] for s in range(players)]
                      for g in range(len(batch))])
    places = res[:, L.R_PLACES:L.R_PLACES + players]
    playing = int(sum(((names[g] == "normal") & (places[g] == 0)).any()
                      for g in np.flatnonzero(capped)))
    bad = capped.reshape(deals, players).any(1)
    keep = np.ones(len(res), bool)
    if rules.teams:
        team = res[:, L.R_DURAK_TEAM][:, None]
        durak = (team >= 0) & ((np.arange(players)[None, :] & 1) == team)
    else:
        durak = res[:, L.R_DURAK][:, None] == np.arange(players)[None, :]
    line = {"bench": "normal-tables", "rules": rules.to_dict(), "tag": rules.tag,
            "lineup": lineup, "seed": seed, "deals": deals,
            "capped": int(bad.sum()), "capped_normal_playing": playing,
            "seconds": round(batch.seconds, 3), "compile_s": round(batch.compile_seconds, 2)}
    for name, key in (("normal", "normal"), (other, "other")):
        mine = (names == name)[keep]

        def per_deal(x):   # each kept deal's mean over its rotations and this side's seats
            x = np.where(mine, x[keep], 0).reshape(-1, players * players).sum(1)
            return x / mine.reshape(-1, players * players).sum(1)

        out = {}
        for stat, x in (("place", places), ("durak", durak), ("first", places == 1)):
            v = per_deal(x.astype(float))
            out[stat] = round(float(v.mean()), 4)
            if stat != "first":
                out[stat + "_ci95"] = round(float(1.96 * v.std(ddof=1) / np.sqrt(len(v))), 4)
        line[key] = out
    return line


def main() -> None:
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--deals", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--only", default="", help="tables (perevodnoy-4) or rulesets, commas")
    ap.add_argument("--against", default="easy")
    args = ap.parse_args()
    only = [x for x in args.only.split(",") if x]
    known = {v for v, _ in TABLES} | {f"{v}-{p}" for v, p in TABLES}
    if set(only) - known:
        from durak_sim.errors import UserError

        raise UserError(f"--only: no table {', '.join(sorted(set(only) - known))} (the tables: "
                        f"{', '.join(f'{v}-{p}' for v, p in TABLES)})")
    for variant, players in TABLES:
        if only and variant not in only and f"{variant}-{players}" not in only:
            continue
        print(json_line(table_line(variant, players, args.deals, args.seed, args.against)),
              flush=True)


if __name__ == "__main__":
    run_script(main)
