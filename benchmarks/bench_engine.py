"""The cost of an external engine's decision (docs/engine-protocol.md). One JSON line per run.

    python benchmarks/bench_engine.py [--deals 500] [--repeat 3]

Per run, on the same deal pairs ``0 .. deals-1`` against ``easy`` (seed 1, seats swapped):

* ``engine_s``: ``durak_sim/engines/lowest_card.py`` seated as ``engine:PATH`` (one process
  per seat, JSON lines over pipes), played by ``durak_sim.engine_match.run_engine_match``;
* ``plugin_s``: the same logic as an in-process plain-Python plugin (``lowest``: the
  engine's ``choose`` on the same readable view), played the same way, so the two differ
  only by the protocol; their records must be the same (``same_records``);
* ``decisions``: the engine's decisions; ``round_trip_ms``: its mean thinking time as
  durak-sim measures it (from writing ``decide`` to reading the answer: the pipe both
  ways, the engine's JSON decoding, its choice and its answer); ``cost_ms``: ``(engine_s -
  plugin_s) / decisions``, everything an engine decision costs more than the same decision
  in-process (the message built and encoded too).

Process start-up (``hello``) is inside ``engine_s``. ``easy``'s compile (or cache load) is
timed apart, before either clock starts (``compile_s``; about 0 after the first run). The
machine's other load makes single runs noisy: use ``--repeat`` and compare the best.
"""
import argparse
import importlib.util
import platform
import time

from durak_sim.bench import first_paragraph, json_line, run_script


def _plugin():
    from durak_sim.engines import EXAMPLES
    from durak_sim.registry import _REGISTRY, register_strategy
    from durak_sim.views import legal_texts, observation_view

    if "lowest" in _REGISTRY:
        return
    spec = importlib.util.spec_from_file_location("lowest_card_engine", EXAMPLES["lowest_card"])
    engine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(engine)

    def decide(obs, legal, hist, rng, mem):
        codes = [int(c) for c in legal[1:legal[0] + 1]]
        texts = legal_texts(obs, codes)
        return codes[texts.index(engine.choose(observation_view(obs), texts))]

    register_strategy("lowest", decide, description="lowest_card.py in-process", plays="all")


def run(deals: int) -> dict:
    from durak_sim import external
    from durak_sim.engine_match import play_schedule_forfeit
    from durak_sim.engines import EXAMPLES
    from durak_sim.play import game_schedule
    from durak_sim.registry import get_strategy
    from durak_sim.rules import Rules

    _plugin()
    spec = f"engine:{EXAMPLES['lowest_card']}"
    d, r = game_schedule(range(deals), 2, True)
    out = {"compile_s": 0.0}
    recs = {}
    for name in ("lowest", spec):
        external.reset_thinking()
        strats = [get_strategy(name), get_strategy("easy")]
        t = time.perf_counter()
        strats[1].decide   # compiled or loaded before the clock starts, timed apart
        out["compile_s"] += time.perf_counter() - t
        got = []
        t = time.perf_counter()
        play_schedule_forfeit(strats, 1, d, r, rules=Rules(), records=got)
        out["plugin_s" if name == "lowest" else "engine_s"] = time.perf_counter() - t
        recs[name] = [{**x, "seats": [s if s == "easy" else "X" for s in x["seats"]]}
                      for x in got]
        if name == spec:
            think = external.thinking_times()[spec]
            external.close_all()
    n = think["decisions"]
    return {"bench": "engine", "deals": deals, "games": 2 * deals, "decisions": n,
            "engine_s": round(out["engine_s"], 3), "plugin_s": round(out["plugin_s"], 3),
            "round_trip_ms": think["mean_ms"],
            "cost_ms": round(1000 * (out["engine_s"] - out["plugin_s"]) / n, 4),
            "same_records": recs["lowest"] == recs[spec],
            "compile_s": round(out["compile_s"], 3),
            "python": platform.python_version(), "machine": platform.machine()}


def main() -> None:
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for _ in range(args.repeat):
        print(json_line(run(args.deals)), flush=True)


if __name__ == "__main__":
    run_script(main)
